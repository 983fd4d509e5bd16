/**
 * The OpenAPI document of a channel as the server serves it, without a server: the HTTP app is
 * built in-process on the services of an empty embedded database (src/compose.ts). Building the
 * app starts no background work and connects to no Redis: printing the document runs no job.
 */
import { buildApp } from '../src/app.js';
import { compose } from '../src/compose.js';
import { loadConfig } from '../src/config.js';
import { openEmbedded } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';

export async function servedDocument(channel: string): Promise<unknown> {
  const database = await openEmbedded('memory://', 'openapi-document');
  try {
    // The routes read nothing to describe themselves; a migrated database keeps the app as served.
    await migrateToLatest(database.db);
    // An empty environment: the document must not depend on who runs the script.
    const composition = await compose(loadConfig({}), { database });
    try {
      const { app } = await buildApp(composition.services, {
        config: composition.config,
        databaseKind: database.kind,
        logger: false,
      });
      try {
        const res = await app.inject({ method: 'GET', url: `/apidoc/${channel}/documentation.json` });
        if (res.statusCode !== 200) throw new Error(`the OpenAPI document answered ${res.statusCode}`);
        return res.json();
      } finally {
        await app.close();
      }
    } finally {
      await composition.close();
    }
  } finally {
    await database.close();
  }
}
