import type { FastifyInstance } from 'fastify';
import type { DatabaseHealth } from '../db/health.js';
import { Problems } from '../problems/catalogue.js';
import { sendProblem } from './problems/handlers.js';

/** What the readiness probe asks (DatabaseProbe.check). */
export interface ReadinessCheck {
  check(): Promise<DatabaseHealth>;
}

const DATABASE = { ok: 'Ok', unreachable: 'Unreachable', timeout: 'TimedOut' } as const;
const MIGRATIONS = { ok: 'Ok', behind: 'Behind', unknown: 'Unknown' } as const;

/** Why the service is not ready, in a sentence that names no internals. */
function notReadyDetail(health: DatabaseHealth): string {
  if (health.database === 'timeout') return 'The database did not answer in time.';
  if (health.database === 'unreachable') return 'The database does not answer.';
  return `The database lacks ${health.pending} of this version's migrations: run \`rampart migrate\` (or start \`rampart serve\`, which applies them).`;
}

/**
 * The probes of load balancers and orchestrators, outside the API channels and anonymous:
 * GET /health/live (the process answers: 200, and nothing else is asked) and GET /health/ready
 * (200 when the database answers within a second and has every migration of this version; else
 * 503, a problem document saying which). GETs outside /api are not throttled (see throttle.ts),
 * so frequent probes never spend a client's budget nor get a 429.
 */
export function registerHealth(app: FastifyInstance, readiness: ReadinessCheck): void {
  app.get('/health/live', async (_request, reply) =>
    reply.header('cache-control', 'no-store').send({ Status: 'Live' }),
  );
  app.get('/health/ready', async (request, reply) => {
    const health = await readiness.check();
    reply.header('cache-control', 'no-store');
    const checks = { Database: DATABASE[health.database], Migrations: MIGRATIONS[health.migrations] };
    if (health.database === 'ok' && health.migrations === 'ok')
      return reply.send({ Status: 'Ready', ...checks });
    return sendProblem(request, reply, Problems.NotReady, notReadyDetail(health), { checks });
  });
}
