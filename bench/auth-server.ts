// Child process of bench/auth.ts: a real Rampart app with one API key, on the database named in argv.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openEmbedded, openPostgres } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';

const kind = process.argv[2];
const url = process.argv[3];
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-bench-'));
const database =
  kind === 'postgresql' && url ? await openPostgres(url, 10) : await openEmbedded(dataDir, 'bench');
await migrateToLatest(database.db);
const config = loadConfig({
  ...process.env,
  RAMPART_THROTTLE_LIMIT: '1000000000',
  RAMPART_DATA_DIR: dataDir,
});
const { app, services } = await buildApp({ config, database });
const { organization } = await services.organizations.ensureFirst();
const ctx = { organizationId: organization.id, actor: { type: 'system' as const, id: null } };
const user = await services.users.create(ctx, { email: 'bench@example.com', role: 'Analyst' });
const { key, secretKey } = await services.apiKeys.create(ctx, { userId: user.id, name: 'bench' });
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.send?.({ url: address, accessKey: key.accessKey, secretKey });
process.on('message', async () => {
  await app.close();
  await database.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
});
