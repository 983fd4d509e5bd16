import { createHash, timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { Metrics } from '../metrics/registry.js';
import { Problems } from '../problems/catalogue.js';
import { registerErrorHandler, sendProblem } from './problems/handlers.js';

/** Where a request's route label comes from: the route's template, never the URL asked. */
const TEMPLATED = /^\/(api|apidoc|health|metrics)(\/|$)/i;

/**
 * The route label of a request: the template it matched (`/api/latest/findings/:id`) for the API,
 * its documentation, the health and metrics endpoints; `static` for the web app's files (their
 * names change with every build); `unmatched` when no route matched (unknown paths, and the web
 * app's pages, answered with its index.html). Bounded whatever clients ask.
 */
export function routeLabel(request: FastifyRequest): string {
  if (request.is404) return 'unmatched';
  const url = request.routeOptions.url;
  if (url === undefined) return 'unmatched';
  return TEMPLATED.test(url) ? url : 'static';
}

/** The digest of a token, so that tokens of any length compare in constant time. */
const digest = (text: string) => createHash('sha256').update(text).digest();

/** Whether the request carries `Authorization: Bearer <token>`, compared in constant time. */
function bearerMatches(request: FastifyRequest, expected: Buffer): boolean {
  const header = request.headers.authorization ?? '';
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return timingSafeEqual(digest(m?.[1] ?? ''), expected) && m !== null;
}

/** GET /metrics on `app`, behind the bearer token when one is set. */
function metricsRoute(app: FastifyInstance, metrics: Metrics, token: string | undefined): void {
  const expected = token === undefined ? undefined : digest(token);
  app.get('/metrics', async (request: FastifyRequest, reply: FastifyReply) => {
    if (expected && !bearerMatches(request, expected)) {
      reply.header('www-authenticate', 'Bearer realm="metrics"');
      return sendProblem(
        request,
        reply,
        Problems.Unauthenticated,
        'The metrics need the bearer token of RAMPART_METRICS_TOKEN: Authorization: Bearer <token>.',
      );
    }
    const text = await metrics.render();
    return reply.header('cache-control', 'no-store').type(metrics.contentType).send(text);
  });
}

/** Whether the metrics are served at all: with a token on the main port, or on a port of their own. */
export function metricsServed(config: Pick<Config, 'metricsToken' | 'metricsPort'>): boolean {
  return config.metricsToken !== undefined || config.metricsPort !== undefined;
}

/**
 * The HTTP metrics of every answer and, with RAMPART_METRICS_TOKEN, GET /metrics on the main port
 * (without it /metrics stays the 404 it is for every unknown path). Nothing at all when the
 * metrics are not served: no hook runs on the requests.
 */
export function registerMetrics(
  app: FastifyInstance,
  metrics: Metrics,
  config: Pick<Config, 'metricsToken' | 'metricsPort'>,
): void {
  if (!metricsServed(config)) return;
  metrics.enableProcessMetrics();
  app.addHook('onResponse', (request, reply, done) => {
    metrics.httpRequest(request.method, routeLabel(request), reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  if (config.metricsToken !== undefined) metricsRoute(app, metrics, config.metricsToken);
}

/**
 * GET /metrics on a port of its own (RAMPART_METRICS_PORT, bound to RAMPART_METRICS_HOST), for a
 * scraper on a private network; the token is asked there too when one is set. Every other path is
 * a 404 problem. Resolves once it listens; close() stops it.
 */
export async function listenMetrics(
  metrics: Metrics,
  config: Pick<Config, 'metricsToken' | 'metricsPort' | 'metricsHost'>,
): Promise<FastifyInstance | undefined> {
  if (config.metricsPort === undefined) return undefined;
  const server = Fastify({ logger: false });
  registerErrorHandler(server);
  server.setNotFoundHandler((request, reply) =>
    sendProblem(request, reply, Problems.NotFound, 'This port serves GET /metrics only.'),
  );
  metricsRoute(server, metrics, config.metricsToken);
  await server.listen({ port: config.metricsPort, host: config.metricsHost }).catch(async (error) => {
    await server.close();
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(
      code === 'EADDRINUSE'
        ? `RAMPART_METRICS_PORT ${config.metricsPort} on ${config.metricsHost} is in use: set RAMPART_METRICS_PORT to a free port.`
        : code === 'EADDRNOTAVAIL'
          ? `${config.metricsHost} is not an address of this machine: set RAMPART_METRICS_HOST to one of its addresses.`
          : `Cannot serve the metrics on ${config.metricsHost}:${config.metricsPort}: ${(error as Error).message}`,
    );
  });
  return server;
}
