// Child process of bench/auth.ts: the baseline, a bare Fastify route answering the same text.
// With the argument `headers`, the route also sends Rampart's six answer headers (fixed values,
// bench/auth-headers.ts): what those headers alone cost.
import Fastify from 'fastify';
import { setFixedHeaders } from './auth-headers.js';

const withHeaders = process.argv[2] === 'headers';
const app = Fastify({ logger: false });
app.get('/api/integration/authenticationcheck', async (_request, reply) => {
  if (withHeaders) setFixedHeaders(reply);
  return reply.type('text/plain; charset=utf-8').send('Authenticated');
});
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.send?.({ url: address, accessKey: '', secretKey: '' });
process.on('message', async () => {
  await app.close();
  process.exit(0);
});
