// Child process of bench/auth.ts: a real Rampart app with one API key, on the database named in argv.
import { startBenchApp } from './bench-app.js';

const bench = await startBenchApp({ kind: process.argv[2] ?? 'embedded', url: process.argv[3] });
const address = await bench.app.listen({ port: 0, host: '127.0.0.1' });
process.send?.({ url: address, accessKey: bench.accessKey, secretKey: bench.secretKey });
process.on('message', async () => {
  await bench.close();
  process.exit(0);
});
