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

/** How long a line may wait in the log buffer when the server is quiet. */
export const LOG_FLUSH_MS = 1000;

/** What createLogger writes to: pino's buffered destination, or another for a test. */
export interface LogDestination {
  write(line: string): boolean;
  flush(): void;
}

export function createLogger(
  config: Pick<Config, 'logLevel'>,
  // Buffered and flushed by pino on exit: a synchronous write per line costs more than a request.
  destination: LogDestination = pino.destination({ dest: 1, sync: false, minLength: 4096 }),
): Logger {
  // Under load the 4 KiB buffer fills in milliseconds; on a quiet server a line (a warning, "knowledge
  // base loaded") would wait for the next 4 KiB of traffic: it is written within a second instead.
  let pending = false;
  const timer = setInterval(() => {
    if (!pending) return;
    pending = false;
    try {
      destination.flush();
    } catch {
      // Not open yet, or closed at shutdown: the next tick or pino's final flush writes it.
    }
  }, LOG_FLUSH_MS);
  timer.unref();
  return pino(
    {
      level: config.logLevel,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      hooks: {
        streamWrite: (line) => {
          pending = true;
          return line;
        },
      },
    },
    destination,
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
