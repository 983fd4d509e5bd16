import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
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

/**
 * An upload answered before its body was read to the end (refused: declared too large, beyond a
 * parse limit) closes its connection: the rest of the body would otherwise be read for nothing,
 * or leave a kept-alive connection waiting, and the client's next request on it unanswered.
 */
export function closeUnreadUploads(scope: FastifyInstance): void {
  scope.addHook('onSend', async (request, reply, payload) => {
    if (!request.raw.readableEnded) reply.header('connection', 'close');
    return payload;
  });
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
  const raw = join(dir, `${id}.upload`);
  const text = join(dir, `${id}.report`);
  const remove = async () => {
    await rm(raw, { force: true });
    await rm(text, { force: true });
  };
  try {
    const hash = createHash('sha256');
    const upload = meter(limit, false, hash, setting);
    await pipeline(
      body,
      upload.transform,
      guardTransform(new SniffingGuard(limits)),
      createWriteStream(raw, { mode: 0o600 }),
    );
    const size = upload.bytes();
    if (size === 0) throw new EmptyReportError();
    const gzipped = await startsWithGzipMagic(raw);
    if (!gzipped) return { path: raw, sha256: hash.digest('hex'), size, gzipped, remove };
    const inflated = meter(limit, true, undefined, setting);
    await pipeline(
      createReadStream(raw),
      createGunzip(),
      inflated.transform,
      guardTransform(new SniffingGuard(limits)),
      createWriteStream(text, { mode: 0o600 }),
    );
    await rm(raw, { force: true });
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
