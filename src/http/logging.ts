import { LogController } from 'fastify';
import { type Logger, pino } from 'pino';
import type { Config } from '../config.js';

// Request lines carry method, URL, status and timing only; never headers or bodies. These paths
// are a second line of defence should a header object ever be logged. (No wildcards: pino checks
// wildcard paths on every line.)
export const REDACTED_PATHS = [
  'req.headers.apiaccesskey',
  'req.headers.apisecretkey',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
];

export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  return pino(
    { level: config.logLevel, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } },
    // Buffered and flushed by pino on exit: a synchronous write per line costs more than a request.
    pino.destination({ dest: 1, sync: false, minLength: 4096 }),
  );
}

/** One line per request, when it completes, instead of Fastify's two. */
export class RequestLogController extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: Parameters<LogController['requestCompleted']>[1],
    reply: Parameters<LogController['requestCompleted']>[2],
  ): void {
    const line = {
      method: request.method,
      url: request.url,
      statusCode: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}
