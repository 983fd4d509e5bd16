// What bench:auth, bench:auth-cpu and bench:busy run Rampart as: the app as `rampart serve` builds
// it on a fresh database, with one Analyst's API key. The throttle stays on with a limit one load
// generator cannot reach.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RampartApp } from '../src/app.js';
import { compose, httpApp } from '../src/compose.js';
import { loadConfig } from '../src/config.js';
import { type Database, openEmbedded, openPostgres } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import type { LogDestination } from '../src/http/logging.js';
import { createLogger } from '../src/http/logging.js';
import type { Services } from '../src/services.js';

export interface BenchApp extends RampartApp {
  services: Services;
  accessKey: string;
  secretKey: string;
  /** Closes the app and the database, and removes the data directory. */
  close(): Promise<void>;
}

export async function startBenchApp(options: {
  /** PostgreSQL at `url`, or else a fresh embedded data directory (`memory://` with `inMemory`). */
  kind: string;
  url?: string;
  inMemory?: boolean;
  env?: Record<string, string>;
  /** Where the log goes instead of stdout. */
  logTo?: LogDestination;
}): Promise<BenchApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-bench-'));
  const database: Database =
    options.kind === 'postgresql' && options.url
      ? await openPostgres(options.url, 10)
      : await openEmbedded(options.inMemory ? 'memory://' : dataDir, 'bench');
  await migrateToLatest(database.db);
  const { DATABASE_URL: _postgres, ...env } = process.env;
  const config = loadConfig({
    ...env,
    RAMPART_THROTTLE_LIMIT: '1000000000',
    RAMPART_DATA_DIR: dataDir,
    // A benchmark measures Rampart, not downloads from the official intelligence sources.
    RAMPART_INTEL_SYNC: 'off',
    ...options.env,
  });
  const logger = options.logTo ? createLogger(config, options.logTo) : undefined;
  // As `rampart serve` runs: the services, the HTTP app and the background work (imports are jobs).
  const composition = await compose(config, { database, authCacheSeconds: config.authCacheSeconds });
  const { app, routes } = await httpApp(composition, logger ? { logger } : {});
  await composition.startBackground({ log: app.log });
  const rampart = { app, routes, services: composition.services };
  const { organization } = await rampart.services.organizations.ensureFirst();
  const ctx = { organizationId: organization.id, actor: { type: 'system' as const, id: null } };
  const user = await rampart.services.users.create(ctx, { email: 'bench@example.com', role: 'Analyst' });
  const { key, secretKey } = await rampart.services.apiKeys.create(ctx, { userId: user.id, name: 'bench' });
  return {
    ...rampart,
    accessKey: key.accessKey,
    secretKey,
    close: async () => {
      await rampart.app.close();
      await composition.close();
      await database.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
