// Child process of bench/auth.ts: the baseline, a bare Fastify route answering the same text.
// With the argument `headers`, the same route also sends the six headers Rampart's answer carries
// (request id, nosniff, referrer policy, three RateLimit fields), fixed values of the same
// lengths, set in the handler: what those bytes alone cost the server, the kernel and the client.
import Fastify from 'fastify';

const REQUEST_ID = '0b6f1c2e-4d3a-4f5b-8c7d-9e0a1b2c3d4e';
const LIMIT = 1_000_000_000;

const withHeaders = process.argv[2] === 'headers';
const app = Fastify({ logger: false });
app.get('/api/integration/authenticationcheck', async (_request, reply) => {
  if (withHeaders) {
    reply
      .header('x-request-id', REQUEST_ID)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('ratelimit-limit', LIMIT)
      .header('ratelimit-remaining', LIMIT - 1)
      .header('ratelimit-reset', 60);
  }
  return reply.type('text/plain; charset=utf-8').send('Authenticated');
});
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.send?.({ url: address, accessKey: '', secretKey: '' });
process.on('message', async () => {
  await app.close();
  process.exit(0);
});
