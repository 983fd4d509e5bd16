import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rm, stat } from 'node:fs/promises';
import { IncomingMessage } from 'node:http';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished, PassThrough, type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { processRuns } from '../../lib/process.js';
import { guardTransform, SniffingGuard } from '../../parsing/byte-guards.js';
import {
  PARSE_LIMIT_SETTINGS,
  type ParseLimitError,
  type ParseLimits,
  parseLimits,
} from '../../parsing/parse-limits.js';
import { AppError } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';

/** A report saved to disk, ready to be detected and parsed. */
export interface SpooledReport {
  /** The report as text bytes (decompressed when it came gzipped). */
  path: string;
  /** SHA-256 and size of the bytes as they were sent. */
  sha256: string;
  size: number;
  gzipped: boolean;
  remove(): Promise<void>;
}

export class ReportTooLargeError extends Error {
  constructor(
    readonly limit: number,
    decompressed: boolean,
    setting = 'RAMPART_IMPORT_MAX_BYTES',
  ) {
    super(
      decompressed
        ? `The file decompresses to more than ${limit} bytes (${setting}); gzip bombs are cut off there.`
        : `The file is larger than ${limit} bytes (${setting}).`,
    );
    this.name = 'ReportTooLargeError';
  }
}

/**
 * Refuses at once (413), before a byte of the body is read, a request whose declared
 * Content-Length is already beyond the limit (a multipart form may carry a little more than its
 * file).
 */
export function refuseDeclaredSize(
  contentLength: string | undefined,
  limit: number,
  options: { setting?: string; multipart?: boolean } = {},
): void {
  const declared = Number(contentLength);
  const allowed = limit + (options.multipart ? MULTIPART_OVERHEAD : 0);
  if (contentLength !== undefined && Number.isFinite(declared) && declared > allowed)
    throw AppError.of(
      Problems.PayloadTooLarge,
      new ReportTooLargeError(limit, false, options.setting).message,
    );
}

/** How long a refused upload's body is read on (and thrown away) before its answer goes out. */
export const DRAIN_MS = 10_000;

/**
 * An upload refused while its body was being read (beyond a parse limit, too large once read,
 * not a report) reads the rest of the body, up to `maxBytes` and for up to DRAIN_MS, and throws it
 * away before answering. A client that sends the whole file before it reads the answer (Python's
 * requests, many CI scripts) would otherwise have its connection reset under it while still
 * sending, and see a broken pipe instead of the 422. A body that was read to its end keeps the
 * connection open; one that was not (beyond the bounds, or refused before a byte of it was read:
 * declared too large, not signed in) closes it, so that the rest is not read for nothing and the
 * client's next request on it is not left unanswered.
 */
export function closeUnreadUploads(scope: FastifyInstance, options: { maxBytes: number }): void {
  scope.addHook('onSend', async (request, reply, payload) => {
    const body = request.raw;
    if (body.readableEnded) return payload;
    if (
      body.readableDidRead &&
      !body.destroyed &&
      declaredWithin(body.headers['content-length'], options.maxBytes)
    )
      await drain(body, options.maxBytes, DRAIN_MS);
    if (!body.readableEnded) reply.header('connection', 'close');
    return payload;
  });
}

function declaredWithin(contentLength: string | undefined, maxBytes: number): boolean {
  return contentLength === undefined || Number(contentLength) <= maxBytes;
}

/**
 * Reads `body` to its end and throws it away, resolving once it ended, or once `maxBytes` were read
 * or `ms` passed, whichever comes first (the body is then left paused).
 */
export function drain(body: Readable, maxBytes: number, ms: number): Promise<void> {
  return new Promise((resolve) => {
    let bytes = 0;
    const stop = () => {
      clearTimeout(timer);
      body.off('data', onData).off('end', stop).off('error', stop).off('close', stop);
      body.pause();
      resolve();
    };
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > maxBytes) stop();
    };
    const timer = setTimeout(stop, ms);
    // Whatever it was piped into (a form's parser) has given up on it.
    body.unpipe();
    body.on('data', onData).once('end', stop).once('error', stop).once('close', stop);
    body.resume();
  });
}

/**
 * `body` passed on through a stream of its own, which a failing pipeline may destroy without
 * destroying `body` (a request's body: destroying it would reset the connection before the
 * answer). An error or early end of `body` still fails what reads from it.
 */
function detached(body: Readable): Readable {
  const through = new PassThrough();
  // `finished` also sees a body that failed or closed before this was called (a form cut short).
  const stopWatching = finished(body, { writable: false }, (error) => {
    if (error) through.destroy(error);
  });
  through.once('close', () => {
    stopWatching();
    body.unpipe(through);
  });
  return body.pipe(through);
}

/** Room for a form's boundaries, part headers and small fields around its file. */
const MULTIPART_OVERHEAD = 1024 * 1024;

export class EmptyReportError extends Error {
  constructor() {
    super('The report is empty: send the file as the request body.');
    this.name = 'EmptyReportError';
  }
}

// Counts (and optionally hashes) bytes as they pass, failing past the limit.
export function meter(
  limit: number,
  decompressed: boolean,
  hash?: ReturnType<typeof createHash>,
  setting?: string,
) {
  let bytes = 0;
  const transform = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      if (bytes > limit) return done(new ReportTooLargeError(limit, decompressed, setting));
      hash?.update(chunk);
      done(null, chunk);
    },
  });
  return { transform, bytes: () => bytes };
}

export function importDirectory(configured?: string): string {
  return configured ?? join(tmpdir(), 'rampart-imports');
}

/**
 * The files this process spooled and has not removed yet: an upload under way, a report waiting
 * for its job. The sweep leaves them alone whatever their age.
 */
const held = new Set<string>();

/**
 * A spooled file's name says who wrote it — `<host>_<pid>_<uuid>.upload` (or `.report`, the
 * unpacked text of a gzipped upload) — so that a sweep can tell the leftovers of a process that
 * died (SIGKILL mid-upload leaves a half-written file nobody refers to) from the uploads of a
 * process still at work, in this instance or another sharing RAMPART_IMPORT_DIR.
 */
function spoolName(id: string, suffix: 'upload' | 'report'): string {
  return `${hostname().replace(/[^A-Za-z0-9.-]/g, '-')}_${process.pid}_${id}.${suffix}`;
}

const SPOOLED = /^(?:(?<host>[A-Za-z0-9.-]+)_(?<pid>\d+)_)?[0-9a-f-]{36}\.(?:upload|report)$/;

/** Removes a spooled file (once its import or load has ended), and forgets that it was held. */
export async function removeSpooled(path: string): Promise<void> {
  await rm(path, { force: true });
  held.delete(path);
}

/** How long a spooled file nobody refers to is kept when whether its writer lives cannot be told. */
export const SPOOL_GRACE_MS = 6 * 3600_000;

/**
 * Removes what dead processes left in the import folder: spooled files (by their name, see
 * spoolName) that no unfinished import refers to (`inUse`), that this process does not hold, and
 * whose writer is gone — a process of this host that no longer runs, or, for another host's file
 * or one whose pid may have been reused, no write for SPOOL_GRACE_MS by `now`. Files that are not
 * spooled reports are never touched. Returns the names removed.
 */
export async function sweepImportDirectory(
  dir: string,
  inUse: ReadonlySet<string>,
  now: Date,
): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const here = hostname().replace(/[^A-Za-z0-9.-]/g, '-');
  const removed: string[] = [];
  for (const name of names) {
    const match = SPOOLED.exec(name);
    const path = join(dir, name);
    if (!match || inUse.has(path) || held.has(path)) continue;
    const pid = Number(match.groups?.pid);
    const writerGone = match.groups?.host === here && pid !== process.pid && !processRuns(pid);
    if (!writerGone) {
      const modified = await stat(path).then(
        (s) => s.mtimeMs,
        () => undefined,
      );
      if (modified === undefined || now.getTime() - modified < SPOOL_GRACE_MS) continue;
    }
    await removeSpooled(path);
    removed.push(name);
  }
  return removed;
}

/**
 * Saves an uploaded report to `dir`, hashing it and counting its size; a gzipped report (by its
 * magic bytes) is decompressed into a second file with the same size limit, so a small upload
 * cannot expand without bound. The bytes (unpacked) pass a SniffingGuard on their way to disk:
 * a file beyond a parse limit (nested too deep, too many attributes, a text too long…) fails
 * with a ParseLimitError as soon as the limit is crossed, and nothing of it is left behind.
 */
export async function spoolReport(
  body: Readable,
  dir: string,
  limit: number,
  setting?: string,
  limits: ParseLimits = parseLimits(),
): Promise<SpooledReport> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const id = randomUUID();
  const raw = join(dir, spoolName(id, 'upload'));
  const text = join(dir, spoolName(id, 'report'));
  held.add(raw);
  held.add(text);
  const remove = async () => {
    await removeSpooled(raw);
    await removeSpooled(text);
  };
  try {
    const hash = createHash('sha256');
    const upload = meter(limit, false, hash, setting);
    await pipeline(
      // A request's body is kept alive for drain(); any other stream is destroyed on failure.
      body instanceof IncomingMessage ? detached(body) : body,
      upload.transform,
      guardTransform(new SniffingGuard(limits)),
      createWriteStream(raw, { mode: 0o600 }),
    );
    const size = upload.bytes();
    if (size === 0) throw new EmptyReportError();
    const gzipped = await startsWithGzipMagic(raw);
    if (!gzipped) {
      held.delete(text);
      return { path: raw, sha256: hash.digest('hex'), size, gzipped, remove };
    }
    const inflated = meter(limit, true, undefined, setting);
    await pipeline(
      createReadStream(raw),
      createGunzip(),
      inflated.transform,
      guardTransform(new SniffingGuard(limits)),
      createWriteStream(text, { mode: 0o600 }),
    );
    await removeSpooled(raw);
    if (inflated.bytes() === 0) throw new EmptyReportError();
    return { path: text, sha256: hash.digest('hex'), size, gzipped, remove };
  } catch (error) {
    await remove();
    if (
      (error as NodeJS.ErrnoException).code === 'Z_DATA_ERROR' ||
      (error as Error).message?.includes('unexpected end of file')
    )
      throw new Error(`The gzip data is damaged: ${(error as Error).message}`);
    throw error;
  }
}

/**
 * The 422 an upload beyond a parse limit answers: the detail names the limit, its setting and
 * where the file broke it; `limit`, `line` and `column` say the same for programs.
 */
export function parseLimitProblem(error: ParseLimitError): AppError {
  const setting = error.limit === 'maxNameBytes' ? undefined : PARSE_LIMIT_SETTINGS[error.limit];
  return AppError.of(Problems.ParseLimitExceeded, error.message, {
    ...(setting ? { limit: setting } : {}),
    line: error.line,
    column: error.column,
  });
}

/** Whether a file starts with gzip's magic bytes (1f 8b), whatever its name. */
export async function startsWithGzipMagic(path: string): Promise<boolean> {
  const file = await open(path, 'r');
  try {
    const { bytesRead, buffer } = await file.read(Buffer.alloc(2), 0, 2, 0);
    return bytesRead === 2 && buffer[0] === 0x1f && buffer[1] === 0x8b;
  } finally {
    await file.close();
  }
}

/** The first bytes of a report as text, for format detection. */
export async function readHead(path: string, bytes = 64 * 1024): Promise<string> {
  const file = await open(path, 'r');
  try {
    const { bytesRead, buffer } = await file.read(Buffer.alloc(bytes), 0, bytes, 0);
    return buffer
      .subarray(0, bytesRead)
      .toString('utf8')
      .replace(/^\uFEFF/, '');
  } finally {
    await file.close();
  }
}
