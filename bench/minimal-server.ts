// Child process of bench/auth.ts: the floor (bench/minimal-auth.ts) on a real socket.
import { minimalAuthApp } from './minimal-auth.js';

const { app, accessKey, secretKey } = await minimalAuthApp();
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.send?.({ url: address, accessKey, secretKey });
process.on('message', async () => {
  await app.close();
  process.exit(0);
});
