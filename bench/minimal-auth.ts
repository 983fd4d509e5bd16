/**
 * The floor of bench:auth and bench:auth-cpu: the authentication check's route with what it must
 * do written as plainly as Fastify allows — a random request id, the six headers Rampart sends
 * (request id, nosniff, referrer policy, three RateLimit fields), the key looked up in a Map and
 * its secret compared in constant time, a fixed-window counter per key, and one log line per
 * request built as a string in an onResponse hook (kept in memory, not written). Not a server
 * anyone should run: no database, one key, no error answers worth the name.
 */
import { randomUUID, timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';

const ACCESS_KEY = 'A'.repeat(20);
const SECRET_KEY = 'S'.repeat(40);
const LIMIT = 1_000_000_000;

export async function minimalAuthApp(): Promise<{
  app: FastifyInstance;
  accessKey: string;
  secretKey: string;
}> {
  const app = Fastify({ logger: false, genReqId: () => randomUUID() });
  const keys = new Map([[ACCESS_KEY, { secret: Buffer.from(SECRET_KEY), userId: 'bench' }]]);
  const windows = new Map<string, { count: number; resetAt: number }>();
  let lines = '';
  app.addHook('onRequest', (request, reply, done) => {
    reply
      .header('x-request-id', request.id)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer');
    const accessKey = request.headers.apiaccesskey;
    const key = typeof accessKey === 'string' ? keys.get(accessKey) : undefined;
    const given = Buffer.from(String(request.headers.apisecretkey ?? ''));
    if (!key || given.length !== key.secret.length || !timingSafeEqual(given, key.secret)) {
      done(Object.assign(new Error('unauthenticated'), { statusCode: 401 }));
      return;
    }
    const now = Date.now();
    let window = windows.get(accessKey as string);
    if (!window || window.resetAt <= now) {
      window = { count: 0, resetAt: now + 60_000 };
      windows.set(accessKey as string, window);
    }
    window.count += 1;
    reply
      .header('ratelimit-limit', LIMIT)
      .header('ratelimit-remaining', LIMIT - window.count)
      .header('ratelimit-reset', Math.ceil((window.resetAt - now) / 1000));
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    lines += `{"level":30,"time":${Date.now()},"reqId":${JSON.stringify(request.id)},"method":"${request.method}","url":${JSON.stringify(request.url)},"statusCode":${reply.statusCode},"ms":${Math.round(reply.elapsedTime * 10) / 10},"msg":"request completed"}\n`;
    if (lines.length > 65_536) lines = '';
    done();
  });
  app.get('/api/integration/authenticationcheck', async (_request, reply) =>
    reply.type('text/plain; charset=utf-8').send('Authenticated'),
  );
  return { app, accessKey: ACCESS_KEY, secretKey: SECRET_KEY };
}
