// Child process of bench/auth.ts: the baseline, a bare Fastify route answering the same text.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/api/integration/authenticationcheck', async (_request, reply) =>
  reply.type('text/plain; charset=utf-8').send('Authenticated'),
);
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.send?.({ url: address, accessKey: '', secretKey: '' });
process.on('message', async () => {
  await app.close();
  process.exit(0);
});
