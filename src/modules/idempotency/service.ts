import { randomUUID } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import type { IdempotencyRepository, KeptAnswer, SlotId } from './repository.js';

export type { KeptAnswer, SlotId } from './repository.js';

// The rules of Idempotency-Key (draft-ietf-httpapi-idempotency-key-header; docs/idempotency.md):
// the first request with a key holds its slot while it runs; its final answer is kept for the
// key's 24 hours when it is a success or a client error, and the slot freed otherwise; a retry
// of the same request gets the kept answer, the same key with another request a 422, and a key
// whose first request still runs a 409. No Fastify here: src/http/idempotency.ts applies them.

/** A key is kept this long after its first request, by the app clock; then it is free again. */
export const KEY_RETENTION_HOURS = 24;
/**
 * A first request holds its key this long at most: when it has neither answered nor released it
 * by then (its process died), a retry takes the key over and acts.
 */
export const IN_FLIGHT_LEASE_MINUTES = 60;
/**
 * The largest answer body kept (bytes). A larger answer is sent, and its key keeps the status and
 * headers only: a retry is told that the first answer cannot be given again (410), rather than
 * acting twice. No answer of Rampart's that takes a key comes near it.
 */
export const MAX_KEPT_BODY_BYTES = 64 * 1024;
/**
 * Client errors that say "try again later" rather than "this request is wrong": not kept, so that
 * the retry they invite is served (408 Request Timeout, 425 Too Early, 429 Too Many Requests).
 */
const TRANSIENT_CLIENT_ERRORS: ReadonlySet<number> = new Set([408, 425, 429]);

/** Whether a final answer of this status is kept for the key's retries: successes and client errors. */
export function keepsAnswer(status: number): boolean {
  if (status >= 200 && status < 300) return true;
  return status >= 400 && status < 500 && !TRANSIENT_CLIENT_ERRORS.has(status);
}

/** A request that carries a key: its slot, what it was sent to, and its fingerprint. */
export interface KeyedRequest extends SlotId {
  method: string;
  /** The route as registered, channel included (`/api/latest/tickets/:Id/comments`). */
  route: string;
  /** SHA-256 (hex) of the whole request; null while a streamed body has not been read. */
  fingerprint: string | null;
}

export type Claim =
  /** The request holds the key: it acts, and its answer is then kept (finish) or the key freed. */
  | { outcome: 'held'; owner: string }
  /** The same request was answered before: this is its answer. */
  | { outcome: 'replay'; answer: KeptAnswer }
  /**
   * A request to a streamed route whose key was answered before: whether this is the same request
   * is known once its body has been read (compareStreamed).
   */
  | { outcome: 'answered-before'; fingerprint: string; answer: KeptAnswer };

/** What became of a held key once its request answered. */
export type Finish = 'kept' | 'withheld' | 'released' | 'not-fingerprinted' | 'lost';

/** A final answer as the HTTP layer has it; `body` is 'stream' for an answer sent as a stream. */
export interface FinalAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer | null | 'stream';
}

export const REUSED_DETAIL = 'Idempotency-Key is already used with a different payload';

function reused(first: { method: string; route: string }, request: KeyedRequest): AppError {
  const where =
    first.method !== request.method || first.route.toLowerCase() !== request.route.toLowerCase()
      ? `it was first sent with ${first.method} ${first.route}`
      : 'it was first sent with another body, query string or path';
  return AppError.of(
    Problems.IdempotencyKeyReused,
    `${REUSED_DETAIL}: ${where}. Send a new key for each new request; a key is kept ${KEY_RETENTION_HOURS} hours.`,
  );
}

/** The answer of a retry of the same request: the kept answer, or a 410 when its body was not kept. */
function replayOf(answer: KeptAnswer): KeptAnswer {
  if (!answer.withheld) return answer;
  const why =
    answer.withheld === 'secret'
      ? 'it showed a secret once, and Rampart never stores secrets'
      : `it was larger than the ${MAX_KEPT_BODY_BYTES} bytes Rampart keeps`;
  const location = answer.headers.location;
  throw AppError.of(
    Problems.IdempotencyAnswerGone,
    `The request with this Idempotency-Key was carried out (status ${answer.status}), but its answer cannot be given again: ${why}.` +
      (location ? ` Its resource is at ${location}.` : '') +
      ' Do not send it again with a new key unless you mean to act twice.',
    { firstStatus: answer.status },
    location ? { location } : {},
  );
}

const inUse = () =>
  AppError.of(
    Problems.IdempotencyKeyInUse,
    'A request with this Idempotency-Key is still being processed: retry once it has been answered.',
    {},
    { 'retry-after': '1' },
  );

export class IdempotencyService {
  constructor(
    private readonly repo: IdempotencyRepository,
    private readonly clock: Clock,
  ) {}

  /**
   * Takes the key for this request, or says what was answered to it. Throws a 409 problem while the
   * key's first request runs, and a 422 when the key was used for another request.
   */
  async claim(request: KeyedRequest): Promise<Claim> {
    const now = this.clock();
    const owner = randomUUID();
    const slot = {
      ...request,
      owner,
      now,
      leaseUntil: new Date(now.getTime() + IN_FLIGHT_LEASE_MINUTES * 60_000),
      expiresAt: new Date(now.getTime() + KEY_RETENTION_HOURS * 3_600_000),
    };
    // A slot freed or taken over between two of these steps sends the request round again.
    for (let round = 0; round < 3; round++) {
      if (await this.repo.insert(slot)) return { outcome: 'held', owner };
      const found = await this.repo.find(request);
      if (!found) continue;
      const free =
        found.expires_at.getTime() <= now.getTime() ||
        (found.state === 'InFlight' && found.lease_until.getTime() <= now.getTime());
      if (free) {
        if (await this.repo.takeOver(slot)) return { outcome: 'held', owner };
        continue;
      }
      if (found.state === 'InFlight') throw inUse();
      // A slot is Completed only with its status, headers and fingerprint (a check of the table).
      const answer: KeptAnswer = {
        status: found.status!,
        headers: found.headers ?? {},
        body: found.body,
        withheld: found.withheld,
      };
      if (found.method !== request.method || found.route.toLowerCase() !== request.route.toLowerCase())
        throw reused(found, request);
      if (request.fingerprint === null)
        return { outcome: 'answered-before', fingerprint: found.fingerprint!, answer };
      if (found.fingerprint !== request.fingerprint) throw reused(found, request);
      return { outcome: 'replay', answer: replayOf(answer) };
    }
    throw inUse();
  }

  /**
   * A streamed request's fingerprint, once its body has been read: recorded on the key it holds,
   * or (answered before) compared with the first request's: its answer, or a 422.
   */
  async settleStreamed(
    request: KeyedRequest & { fingerprint: string },
    claim: Claim,
  ): Promise<KeptAnswer | null> {
    if (claim.outcome === 'held') {
      await this.repo.setFingerprint(request, claim.owner, request.fingerprint);
      return null;
    }
    if (claim.outcome === 'answered-before' && claim.fingerprint !== request.fingerprint)
      throw reused(request, request);
    return replayOf(claim.answer);
  }

  /**
   * The request that holds the key has answered. An answer keepsAnswer refuses frees the key, so
   * that a retry acts. Otherwise the answer is kept, without its body when the route shows a
   * secret once (`secret`, a success only) or the body is above MAX_KEPT_BODY_BYTES; and the key
   * is freed when a streamed request's body was never read (nothing to compare a retry with).
   */
  async finish(
    id: SlotId,
    owner: string,
    answer: FinalAnswer,
    options: { secret?: boolean } = {},
  ): Promise<Finish> {
    if (!keepsAnswer(answer.status)) return (await this.repo.release(id, owner)) ? 'released' : 'lost';
    const withheld =
      options.secret && answer.status < 300
        ? 'secret'
        : answer.body === 'stream' || (answer.body && answer.body.length > MAX_KEPT_BODY_BYTES)
          ? 'too-large'
          : null;
    const body = withheld || answer.body === 'stream' ? null : answer.body;
    const kept: KeptAnswer = { status: answer.status, headers: answer.headers, body, withheld };
    if (await this.repo.complete(id, owner, kept, this.clock())) return withheld ? 'withheld' : 'kept';
    return (await this.repo.release(id, owner)) ? 'not-fingerprinted' : 'lost';
  }

  /** Frees the key the request holds without keeping an answer (it failed before answering). */
  async release(id: SlotId, owner: string): Promise<void> {
    await this.repo.release(id, owner);
  }

  /** Deletes the organisation's expired keys (the idempotency-purge job); returns how many. */
  purgeExpired(organizationId: string): Promise<number> {
    return this.repo.purgeExpired(organizationId, this.clock());
  }

  /** How many keys the organisation holds, expired or not. */
  count(organizationId: string): Promise<number> {
    return this.repo.count(organizationId);
  }
}
