import { createHash, type Hash } from 'node:crypto';
import { Readable } from 'node:stream';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onSendHookHandler,
  preHandlerHookHandler,
  preParsingHookHandler,
} from 'fastify';
import { Type } from 'typebox';
import type { Claim, IdempotencyService, KeptAnswer, KeyedRequest } from '../modules/idempotency/service.js';
import {
  IN_FLIGHT_LEASE_MINUTES,
  KEY_RETENTION_HOURS,
  MAX_KEPT_BODY_BYTES,
} from '../modules/idempotency/service.js';
import { AppError } from '../problems/app-error.js';
import { Problems } from '../problems/catalogue.js';
import type { Access } from './access.js';

// Idempotency-Key on every unsafe POST (draft-ietf-httpapi-idempotency-key-header; rules in
// src/modules/idempotency/service.ts, the guide in docs/idempotency.md), given to each route as
// it is registered: a route gets it by being a POST that a principal calls, not by asking.
//
// - preParsing: when the header is there, the body is hashed (SHA-256) as the parser reads it;
// - preHandler (after authentication, validation and the throttle): the key is read and claimed
//   for the principal; a retry of an answered request gets its answer here, marked
//   `Idempotent-Replayed: true`; a key in flight is a 409, a key used for another request a 422;
// - onSend: the first request's final answer is kept (a success or a client error), or the key
//   freed (a server error) so that the retry acts.
//
// A route that reads its body as a stream (imports, intelligence loads) hashes it as it saves it,
// and calls settleStreamedBody before it acts.

/**
 * How a route takes Idempotency-Key: its body parsed by Fastify (the rule), read by the route as a
 * stream, or parsed with an answer that shows a secret once (kept without its body: a retry is
 * told it cannot have it again).
 */
export type IdempotencyMode = 'parsed' | 'streamed' | 'secret';

/** What a route declares (RouteDefinition.idempotency): false for a POST that changes nothing. */
export type IdempotencyDeclaration = 'streamed' | 'secret' | false | undefined;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set by channels.ts from the route's method, access and declaration; absent when not taken. */
    idempotency?: IdempotencyMode;
  }
}

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** Marks an answer given again (draft §2.5 leaves the marking to the server; Stripe's name). */
export const REPLAYED_HEADER = 'Idempotent-Replayed';
export const MAX_KEY_LENGTH = 255;

/**
 * Whether a route takes the header: a POST (the draft's non-idempotent methods are POST and PATCH;
 * Rampart's PATCHes set fields and are idempotent as they are) that a principal calls. Not public
 * routes (sign-in, a node's enrolment): no principal to keep the key for. Not a POST that declares
 * it changes nothing (the original's paged queries, checks).
 */
export function idempotencyModeOf(
  method: string,
  access: Access,
  declared: IdempotencyDeclaration,
): IdempotencyMode | undefined {
  if (method !== 'POST' || 'public' in access || declared === false) return undefined;
  return declared ?? 'parsed';
}

/** The header as a route's schema documents it (and validates: a string; the rest is checked here). */
export const IdempotencyHeaders = Type.Object({
  [IDEMPOTENCY_HEADER]: Type.Optional(
    Type.String({
      description:
        `Makes a retry safe: a request sent again with the same key (1 to ${MAX_KEY_LENGTH} printable ASCII characters, ` +
        'a UUID is best; a quoted Structured Field string such as `"8e03978e-40d5-43e8-bc93-6894a57f9324"` or the bare value) ' +
        `and the same method, path, query and body, within ${KEY_RETENTION_HOURS} hours, is answered with the first ` +
        `answer and \`${REPLAYED_HEADER}: true\` instead of acting again. The same key with another request is a 422, ` +
        'a key whose first request is still running a 409. Keys belong to the API key (or signed-in user) that sent them. ' +
        'See docs/idempotency.md.',
      examples: ['8e03978e-40d5-43e8-bc93-6894a57f9324'],
    }),
  ),
});

const invalidKey = (detail: string) =>
  AppError.of(
    Problems.IdempotencyKeyInvalid,
    `${detail} Send one key of 1 to ${MAX_KEY_LENGTH} printable ASCII characters (a UUID is best), bare or as a quoted string.`,
  );

/** Printable ASCII characters (0x20 to 0x7E), but for the quote and the backslash. */
const BARE = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * The key of the header's value: an RFC 8941 String (`"…"`, with `\"` and `\\` escapes), as the
 * draft defines it, or the bare value that many clients send. Throws a 400 problem otherwise.
 */
export function parseIdempotencyKey(header: string): string {
  // Spaces and tabs around a field value are not part of it (RFC 9110 §5.5).
  const value = header.replace(/^[ \t]+|[ \t]+$/g, '');
  let key: string;
  if (value.startsWith('"')) {
    let out = '';
    let i = 1;
    for (; i < value.length; i++) {
      const c = value.charCodeAt(i);
      if (c === 0x22) break;
      if (c === 0x5c) {
        const next = value[i + 1];
        if (next !== '"' && next !== '\\')
          throw invalidKey('The Idempotency-Key string has a backslash that escapes neither " nor \\.');
        out += next;
        i++;
      } else if (c < 0x20 || c > 0x7e) {
        throw invalidKey('The Idempotency-Key holds a character that is not printable ASCII.');
      } else out += value[i];
    }
    if (i !== value.length - 1)
      throw invalidKey('The Idempotency-Key string is not closed by its last character (").');
    key = out;
  } else {
    if (value.length > 0 && !BARE.test(value)) {
      throw invalidKey(
        /[^\x20-\x7e]/.test(value)
          ? 'The Idempotency-Key holds a character that is not printable ASCII.'
          : 'A bare Idempotency-Key cannot hold " or \\: quote it as a string to send those.',
      );
    }
    key = value;
  }
  if (key.length === 0) throw invalidKey('The Idempotency-Key is empty.');
  if (key.length > MAX_KEY_LENGTH)
    throw invalidKey(`The Idempotency-Key is ${key.length} characters long, more than ${MAX_KEY_LENGTH}.`);
  return key;
}

/** How many times the request names the header (Node joins repeated ones with ", "). */
function headerCount(rawHeaders: readonly string[]): number {
  let n = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === 'idempotency-key') n++;
  return n;
}

/** The key of a request, or undefined when it sends none. */
function keyOf(request: FastifyRequest): string | undefined {
  const value = request.headers['idempotency-key'];
  if (value === undefined) return undefined;
  if (Array.isArray(value) || headerCount(request.raw.rawHeaders) > 1)
    throw invalidKey('The Idempotency-Key header is sent more than once.');
  return parseIdempotencyKey(value);
}

/** Whose key it is: an API key, a signed-in user or a scan node, in its organisation. */
function slotOwnerOf(
  request: FastifyRequest,
): Pick<KeyedRequest, 'organizationId' | 'principalKind' | 'principalId'> | undefined {
  const node = request.scanNode;
  if (node) {
    return node.organizationId
      ? { organizationId: node.organizationId, principalKind: 'node', principalId: node.id }
      : undefined;
  }
  const auth = request.auth;
  if (!auth) return undefined;
  return auth.kind === 'apiKey'
    ? { organizationId: auth.organizationId, principalKind: 'apikey', principalId: auth.apiKeyId }
    : { organizationId: auth.organizationId, principalKind: 'user', principalId: auth.userId };
}

const EMPTY_SHA256 = createHash('sha256').digest('hex');

/** The fingerprint of a request: method, route, path parameters, query string and the body's hash. */
function fingerprintOf(request: FastifyRequest, bodyDigest: string): string {
  const q = request.url.indexOf('?');
  return createHash('sha256')
    .update(
      [
        request.method,
        request.routeOptions.url ?? '',
        JSON.stringify(request.params ?? {}),
        q === -1 ? '' : request.url.slice(q + 1),
        bodyDigest,
      ].join('\n'),
    )
    .digest('hex');
}

/** The headers of an answer that a replay gives again (the rest are the replay's own). */
const KEPT_HEADERS = [
  'content-type',
  'location',
  'content-location',
  'content-disposition',
  'content-language',
  'etag',
] as const;

interface KeyState {
  service: IdempotencyService;
  mode: IdempotencyMode;
  keyed: KeyedRequest;
  claim: Claim;
  /** The held key has been finished (kept or freed). */
  finished: boolean;
  /** A streamed route has read its body and compared or recorded its fingerprint. */
  settled: boolean;
}

const BODY_HASH = Symbol('rampart.idempotencyBodyHash');
const STATE = Symbol('rampart.idempotency');

type WithState = FastifyRequest & { [BODY_HASH]?: Hash; [STATE]?: KeyState };

/** Sends a kept answer again, marked as such. */
function sendKept(reply: FastifyReply, answer: KeptAnswer) {
  reply.code(answer.status);
  for (const [name, value] of Object.entries(answer.headers)) reply.header(name, value);
  reply.header(REPLAYED_HEADER, 'true');
  return answer.body === null ? reply.send() : reply.send(answer.body);
}

/** The body as a stream that hashes what the parser reads of it, and reads nothing until asked. */
function hashing(payload: Readable, hash: Hash): Readable {
  return Readable.from(
    (async function* () {
      for await (const chunk of payload) {
        hash.update(chunk as Buffer);
        yield chunk as Buffer;
      }
    })(),
    { objectMode: false },
  );
}

/** Adds the hooks of Idempotency-Key to every route whose config says it takes it (channels.ts). */
export function registerIdempotency(app: FastifyInstance, service: IdempotencyService): void {
  const hashBody: preParsingHookHandler = (request, _reply, payload, done) => {
    if (request.headers['idempotency-key'] === undefined) return done(null, payload);
    const hash = createHash('sha256');
    (request as WithState)[BODY_HASH] = hash;
    done(null, hashing(payload, hash));
  };

  /** Claims the request's key; true when a kept answer has been sent again. */
  async function claim(
    request: FastifyRequest,
    reply: FastifyReply,
    mode: IdempotencyMode,
  ): Promise<boolean> {
    const key = keyOf(request);
    const owner = key === undefined ? undefined : slotOwnerOf(request);
    if (key === undefined || !owner) return false;
    const r = request as WithState;
    const keyed: KeyedRequest = {
      ...owner,
      key,
      method: request.method,
      route: request.routeOptions.url ?? request.url,
      fingerprint:
        mode === 'streamed' ? null : fingerprintOf(request, r[BODY_HASH]?.digest('hex') ?? EMPTY_SHA256),
    };
    const claimed = await service.claim(keyed);
    r[STATE] = { service, mode, keyed, claim: claimed, finished: false, settled: false };
    if (claimed.outcome !== 'replay') return false;
    sendKept(reply, claimed.answer);
    return true;
  }

  /** Keeps the answer of the request that holds its key, or frees the key. */
  async function finish(request: FastifyRequest, reply: FastifyReply, payload: unknown, state: KeyState) {
    if (state.claim.outcome !== 'held') return;
    const { mode } = state;
    const body =
      payload === null || payload === undefined
        ? null
        : typeof payload === 'string'
          ? Buffer.from(payload)
          : payload instanceof Uint8Array
            ? Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength)
            : 'stream';
    const headers: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const value = reply.getHeader(name);
      if (value !== undefined) headers[name] = String(value);
    }
    try {
      const outcome = await service.finish(
        state.keyed,
        state.claim.owner,
        { status: reply.statusCode, headers, body },
        { secret: mode === 'secret' },
      );
      if (outcome === 'withheld' && mode !== 'secret')
        request.log.warn(
          { route: state.keyed.route, status: reply.statusCode },
          `an answer larger than ${MAX_KEPT_BODY_BYTES} bytes is kept without its body: a retry is told so (410)`,
        );
      else if (outcome === 'lost')
        request.log.warn(
          { route: state.keyed.route },
          `the Idempotency-Key was taken over after ${IN_FLIGHT_LEASE_MINUTES} minutes: this answer is not kept`,
        );
      else if (outcome === 'not-fingerprinted' && reply.statusCode < 300)
        request.log.warn(
          { route: state.keyed.route },
          'a streamed request answered before its body was read: its Idempotency-Key is freed',
        );
    } catch (error) {
      // The answer goes out all the same; the key is freed when its lease ends.
      request.log.error({ err: error }, 'the Idempotency-Key could not be finished');
    }
  }

  // Callback style: the hooks run on every request of these routes, and most carry no key.
  const claimFor =
    (mode: IdempotencyMode): preHandlerHookHandler =>
    (request, reply, done) => {
      if (request.headers['idempotency-key'] === undefined) return done();
      claim(request, reply, mode).then((replayed) => {
        if (!replayed) done();
      }, done);
    };

  const keepAnswer: onSendHookHandler = (request, reply, payload, done) => {
    const state = (request as WithState)[STATE];
    if (!state || state.finished) return done(null, payload);
    state.finished = true;
    finish(request, reply, payload, state).then(() => done(null, payload));
  };

  app.addHook('onRoute', (route) => {
    const mode = route.config?.idempotency;
    if (!mode) return;
    if (mode !== 'streamed') route.preParsing = [route.preParsing ?? []].flat().concat(hashBody);
    route.preHandler = [route.preHandler ?? []].flat().concat(claimFor(mode));
    route.onSend = [route.onSend ?? []].flat().concat(keepAnswer);
  });
}

/**
 * For a route that reads its body as a stream (`idempotency: 'streamed'`): once the body has been
 * read (and hashed as it was: `bodyDigest`), and before the route acts. Records the fingerprint
 * on the key this request holds, or, when the key was answered before, sends that answer again
 * (true: the route returns the reply and does nothing) or refuses another body with a 422.
 */
export async function settleStreamedBody(
  request: FastifyRequest,
  reply: FastifyReply,
  bodyDigest: string,
): Promise<boolean> {
  const state = (request as WithState)[STATE];
  if (!state || state.settled) return false;
  const fingerprint = fingerprintOf(request, bodyDigest);
  const answer = await state.service.settleStreamed({ ...state.keyed, fingerprint }, state.claim);
  state.settled = true;
  state.keyed = { ...state.keyed, fingerprint };
  if (!answer) return false;
  sendKept(reply, answer);
  return true;
}
