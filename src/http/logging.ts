import { type FastifyBaseLogger, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import { type Bindings, type ChildLoggerOptions, type Logger, pino } from 'pino';
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

// Query parameters whose values are secrets: ApiSecretKey, SecretKey, client_secret, password,
// access_token… A client that puts its key in the URL must not have it kept in every log. And
// `code`, the authorisation code an OpenID provider sends to single sign-on's callback.
const SECRET_PARAMETER = /secret|passw|token|^code$/i;
const SECRET_IN_QUERY = /secret|passw|token|(?:^|&)code=/i;
const REDACTED = '[redacted]';

function parameterName(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw; // Malformed percent-encoding: judged as it was sent.
  }
}

/**
 * The URL as it may be logged: the values of secret query parameters (SECRET_PARAMETER, by
 * their name, percent-decoded, in any case) replaced by `[redacted]`; the rest as it came.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return url;
  const query = url.slice(q + 1);
  // Most request URLs carry no query, or nothing like a secret in it (nor an encoded name that
  // could hide one): they are logged as they are, without splitting.
  if (!SECRET_IN_QUERY.test(query) && !query.includes('%')) return url;
  const pairs = query.split('&').map((pair) => {
    const eq = pair.indexOf('=');
    if (eq === -1 || !SECRET_PARAMETER.test(parameterName(pair.slice(0, eq)))) return pair;
    return `${pair.slice(0, eq + 1)}${REDACTED}`;
  });
  return `${url.slice(0, q + 1)}${pairs.join('&')}`;
}

/** How long a line may wait in the log buffer when the server is quiet. */
export const LOG_FLUSH_MS = 1000;

/** What createLogger writes to: pino's buffered destination, or another for a test. */
export interface LogDestination {
  write(line: string): boolean;
  flush(callback?: (error?: Error) => void): void;
}

/** How many characters of lines are collected before they are handed to the destination. */
export const LOG_BATCH_CHARS = 64 * 1024;

/**
 * Collects lines and hands them to the destination in pieces of LOG_BATCH_CHARS. pino's buffered
 * destination (sonic-boom) measures the UTF-8 length of its whole pending buffer on every line and
 * starts a write on the thread pool every 4 KiB: about 2 µs a line, against 0.2 µs here (measured
 * on 200,000 request lines written to /dev/null). Each write wakes a thread-pool thread, which on
 * a busy machine takes the event loop's core for a while: 16 KiB pieces still left 6 % of the
 * server's profile in that call under the auth benchmark, 64 KiB pieces 1 %. Lines keep their
 * order; what is collected is handed over by the flush timer, by `flush()`, and before the
 * process exits.
 */
class BatchedSink implements LogDestination {
  private buffer = '';
  /** Something was written since the last tick. */
  private pending = false;

  constructor(private readonly destination: LogDestination) {
    live.add(this);
    listenForExit();
  }

  write(line: string): boolean {
    this.pending = true;
    this.buffer += line;
    if (this.buffer.length >= LOG_BATCH_CHARS) return this.writeOut();
    return true;
  }

  flush(callback?: (error?: Error) => void): void {
    this.writeOut();
    this.destination.flush(callback);
  }

  /** Writes what was collected to the destination. */
  writeOut(): boolean {
    if (this.buffer === '') return true;
    const lines = this.buffer;
    this.buffer = '';
    return this.destination.write(lines);
  }

  /** The flush timer: on a quiet server a line reaches the output within LOG_FLUSH_MS. */
  tick(): void {
    if (!this.pending) return;
    this.pending = false;
    try {
      this.writeOut();
      this.destination.flush();
    } catch {
      // Not open yet, or closed at shutdown: the next tick or pino's final flush writes it.
    }
  }
}

const live = new Set<BatchedSink>();
let listening = false;

/**
 * Before pino's own exit handler flushes its destination (this runs first: it is prepended), the
 * collected lines are handed to it, so that a line logged just before exit is not lost.
 */
function listenForExit(): void {
  if (listening) return;
  listening = true;
  const writeOutAll = () => {
    for (const sink of live) {
      try {
        sink.writeOut();
      } catch {
        // A destination already closed: nothing more can be written to it.
      }
    }
  };
  process.prependListener('beforeExit', writeOutAll);
  process.prependListener('exit', writeOutAll);
}

export function createLogger(
  config: Pick<Config, 'logLevel'>,
  // Asynchronous, and flushed by pino on exit: a synchronous write blocks on a slow reader.
  destination: LogDestination = pino.destination({ dest: 1, sync: false, minLength: 4096 }),
): Logger {
  const sink = new BatchedSink(destination);
  // Under load a batch fills in milliseconds; on a quiet server a line (a warning, "knowledge base
  // loaded") would wait for the next batch of traffic: it is written within a second instead.
  const timer = setInterval(() => sink.tick(), LOG_FLUSH_MS);
  timer.unref();
  const logger = pino(
    { level: config.logLevel, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } },
    sink,
  );
  closers.set(logger, () => {
    clearInterval(timer);
    live.delete(sink);
    try {
      sink.flush();
    } catch {
      // A destination not open yet, or closed: pino's final flush at exit writes what is left.
    }
  });
  return logger;
}

const closers = new WeakMap<object, () => void>();

/**
 * Hands over what a logger made by createLogger collected and lets go of its timer and its place
 * in the exit handler (an app that closes; the process may go on, as in tests). It may still log:
 * lines then wait for pino's own flush at exit.
 */
export function closeLogger(logger: object): void {
  closers.get(logger)?.();
  closers.delete(logger);
}

type PinoInternals = {
  [key: symbol]: unknown;
};

/**
 * Writes a request's line the way pino would (`{"level":30,"time":…,"pid":…,"hostname":…,"reqId":…,
 * "method":…,"url":…,"statusCode":…,"ms":…,"msg":"request completed"}`), as one string built here
 * and handed to the logger's own destination: pino would first make a child logger per request for
 * the `reqId` binding and then serialise the line key by key, which together cost more than the
 * rest of a cached API key check. Only for a logger with pino's default line format; anything
 * else (a test's stand-in, a mixin) is logged through the logger.
 */
export class RequestLineWriter {
  private readonly stream: LogDestination | undefined;
  private readonly time: (() => string) | undefined;
  private readonly bindings: string;
  private readonly messageKey: string;

  constructor(private readonly logger: FastifyBaseLogger) {
    const internals = logger as unknown as PinoInternals;
    const { streamSym, timeSym, chindingsSym, messageKeySym, mixinSym } = pino.symbols;
    const stream = internals[streamSym] as LogDestination | undefined;
    const plain = typeof stream?.write === 'function' && !internals[mixinSym];
    this.stream = plain ? stream : undefined;
    this.time = plain ? (internals[timeSym] as () => string) : undefined;
    this.bindings = (internals[chindingsSym] as string | undefined) ?? '';
    this.messageKey = (internals[messageKeySym] as string | undefined) ?? 'msg';
  }

  /** One line per request, at info: method, URL, status and time, never headers or a body. */
  completed(request: FastifyRequest, reply: FastifyReply): void {
    const ms = Math.round(reply.elapsedTime * 10) / 10;
    if (!this.stream || !this.time) {
      this.logger.info(
        {
          reqId: request.id,
          method: request.method,
          url: redactUrl(request.url),
          statusCode: reply.statusCode,
          ms,
        },
        'request completed',
      );
      return;
    }
    if (!(this.logger as Logger).isLevelEnabled('info')) return;
    // The method is one of Node's known tokens; the id and URL come from the client and are escaped.
    this.stream.write(
      `{"level":30${this.time()}${this.bindings},"reqId":${JSON.stringify(request.id)},"method":"${request.method}",` +
        `"url":${JSON.stringify(redactUrl(request.url))},"statusCode":${reply.statusCode},"ms":${ms},` +
        `"${this.messageKey}":"request completed"}\n`,
    );
  }
}

type LogArgs = unknown[];
type LogCall = (...args: LogArgs) => void;

/**
 * A request's logger, made a pino child (with its `reqId` binding) only when something logs
 * through it: most requests log nothing but their completed line, which RequestLineWriter writes.
 */
// Methods on the prototype, not arrow properties: nothing is allocated per request but the object.
class LazyRequestLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private get log(): FastifyBaseLogger {
    this.made ??= this.parent.child(this.bindings, this.options);
    return this.made;
  }

  private call(method: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent', args: LogArgs) {
    const log = this.log;
    (log[method] as LogCall).apply(log, args);
  }

  get level(): string {
    return this.made?.level ?? this.options.level ?? this.parent.level;
  }
  set level(level: string) {
    this.log.level = level;
  }
  fatal(...args: LogArgs): void {
    this.call('fatal', args);
  }
  error(...args: LogArgs): void {
    this.call('error', args);
  }
  warn(...args: LogArgs): void {
    this.call('warn', args);
  }
  info(...args: LogArgs): void {
    this.call('info', args);
  }
  debug(...args: LogArgs): void {
    this.call('debug', args);
  }
  trace(...args: LogArgs): void {
    this.call('trace', args);
  }
  silent(...args: LogArgs): void {
    this.call('silent', args);
  }
  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.log.child(bindings, options);
  }
}

/** Fastify's `childLoggerFactory`: see LazyRequestLogger. */
export function lazyChildLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  return new LazyRequestLogger(logger, bindings, options) as unknown as FastifyBaseLogger;
}

/** One line per request, when it completes, instead of Fastify's two. */
export class RequestLogController extends LogController {
  private writer: RequestLineWriter | undefined;

  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: Parameters<LogController['requestCompleted']>[1],
    reply: Parameters<LogController['requestCompleted']>[2],
  ): void {
    if (error) {
      reply.log.error(
        {
          method: request.method,
          url: redactUrl(request.url),
          statusCode: reply.statusCode,
          ms: Math.round(reply.elapsedTime * 10) / 10,
          err: error,
        },
        'request errored',
      );
      return;
    }
    this.writer ??= new RequestLineWriter(request.server.log);
    this.writer.completed(request, reply);
  }
}
