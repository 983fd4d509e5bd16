import { fileURLToPath } from 'node:url';
import { httpApp } from '../compose.js';
import type { Config } from '../config.js';
import { closeLogger, createLogger } from '../http/logging.js';
import { listenMetrics } from '../http/metrics.js';
import type { ServiceContext } from '../modules/context.js';
import type { JsonFlag } from './commands.js';
import { type CliEnv, openRuntime, readConfig } from './runtime.js';

const SYSTEM: ServiceContext['actor'] = { type: 'system', id: null };

/** The knowledge base folder (RAMPART_INTEL_KB; default the bundled one), or undefined when off. */
export function knowledgeBaseDir(config: Pick<Config, 'intelKb'>): string | undefined {
  if (config.intelKb?.toLowerCase() === 'off') return undefined;
  return config.intelKb ?? fileURLToPath(new URL('../../knowledge-base/', import.meta.url));
}

export interface RunningServer {
  url: string;
  /** Drains requests, closes the database and releases it. */
  stop(): Promise<void>;
}

/**
 * Starts the HTTP server: the composition (src/compose.ts) of a command, the HTTP app on its
 * services, and — only here — the background work (the job runner, the system schedules, the
 * local scan node). Resolves once it listens; `stop` shuts it down gracefully.
 */
export async function serveCommand(cli: CliEnv, opts: JsonFlag): Promise<RunningServer> {
  const config = readConfig(cli);
  // One service graph for the server: the runtime's, with the server's API key cache.
  const rt = await openRuntime(cli, 'serve', config, { authCacheSeconds: config.authCacheSeconds });
  const logger = createLogger(config);
  let built: { close(): Promise<unknown> } | undefined;
  let metricsServer: { close(): Promise<unknown> } | undefined;
  // Stops in the reverse order of the start: the metrics port and the app (no more requests; its Redis connection),
  // then the runtime (background work, bus, and the database last), then the log.
  const shutDown = async () => {
    try {
      await metricsServer?.close();
      await built?.close();
    } finally {
      await rt.close();
      closeLogger(logger);
    }
  };
  try {
    // Instances starting together: one creates the Admin (and prints its password), the others
    // wait and find it.
    const admin = await rt.database.exclusive('first-start', () =>
      rt.services.users.ensureAdmin(
        { organizationId: rt.firstOrganization.id, actor: SYSTEM },
        config.adminEmail,
        config.adminPassword,
      ),
    );
    const { app } = await httpApp(rt, { logger });
    built = app;
    const services = rt.services;
    await rt.startBackground({ log: app.log });
    if (!admin.created && config.adminPassword !== undefined) {
      // The variable only sets the first Admin's password; silence would let one believe it worked.
      const ignored =
        `RAMPART_ADMIN_PASSWORD was ignored: ${admin.user.email} already exists and keeps its password. ` +
        `To set a new one, ${rt.database.kind === 'embedded' ? 'stop the server and ' : ''}run: ` +
        `rampart user reset-password ${admin.user.email} (add --password-stdin to give it on stdin).`;
      app.log.warn(ignored);
      cli.out.stderr(`${ignored}\n`);
    }
    await app.listen({ port: config.port, host: config.host }).catch((error) => {
      throw listenError(error, config);
    });
    // The metrics' own port (RAMPART_METRICS_PORT), when set: a start that cannot bind it fails.
    metricsServer = await listenMetrics(rt.services.metrics, config);
    // The bundled knowledge base on a new installation, in the background: it does not delay
    // serving requests. The scheduled sync is a job (src/background.ts); on PostgreSQL it waits
    // for this load under the same lock.
    const knowledgeBase = knowledgeBaseDir(config);
    const firstLoad = knowledgeBase
      ? rt.database
          // One instance loads it; the others wait and then find it loaded.
          .exclusive('knowledge-base', () => services.intel.loadKnowledgeBaseIfEmpty(knowledgeBase))
          .then((loads) => {
            if (loads)
              app.log.info({ loads: loads.map((l) => `${l.source}: ${l.state}`) }, 'knowledge base loaded');
          })
          .catch((error) => app.log.warn({ err: error }, 'could not load the knowledge base'))
      : Promise.resolve();
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const url = cli.env.RAMPART_BASE_URL ? config.baseUrl : `http://localhost:${port}`;
    const lines = [
      `Rampart is running at ${url}`,
      `  database: ${rt.database.kind === 'embedded' ? `embedded PostgreSQL server in ${config.dataDir}` : 'PostgreSQL (DATABASE_URL)'}`,
      `  API documentation: ${url}/apidoc/latest/`,
    ];
    if (admin.generatedPassword) {
      lines.push(
        `  Admin created: ${admin.user.email} with password ${admin.generatedPassword}`,
        '  This password is shown only once: store it safely.',
      );
    } else if (admin.created) {
      lines.push(`  Admin created: ${admin.user.email} (password from RAMPART_ADMIN_PASSWORD)`);
    }
    cli.out.stdout(
      opts.json
        ? `${JSON.stringify({
            Url: url,
            Database: rt.database.kind,
            Admin: {
              Email: admin.user.email,
              Created: admin.created,
              Password: admin.generatedPassword ?? null,
            },
          })}\n`
        : `${lines.join('\n')}\n`,
    );

    let stopping: Promise<void> | undefined;
    const stop = () => {
      stopping ??= (async () => {
        const exit = cli.exit;
        const force =
          exit &&
          setTimeout(() => {
            app.log.error('shutdown timed out; exiting');
            exit(1);
          }, config.shutdownTimeoutSeconds * 1000);
        force?.unref();
        try {
          await firstLoad;
          await shutDown();
        } finally {
          if (force) clearTimeout(force);
        }
      })();
      return stopping;
    };
    return { url, stop };
  } catch (error) {
    // The background work (job worker, scheduler, local scan node) may have started: the
    // runtime stops it before the database closes under it, or its next claim fails on a closed pool.
    await shutDown().catch(() => {});
    throw error;
  }
}

/** Why the server cannot listen, said with the setting that changes it. */
function listenError(error: unknown, config: Pick<Config, 'port' | 'host'>): Error {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE')
    return new Error(
      `Port ${config.port} on ${config.host} is in use (another Rampart, or another program, listens there): stop it, or set RAMPART_PORT to a free port.`,
    );
  if (code === 'EACCES')
    return new Error(
      `Not allowed to listen on port ${config.port} on ${config.host}: ports below 1024 need privileges; set RAMPART_PORT to 1024 or above.`,
    );
  if (code === 'EADDRNOTAVAIL')
    return new Error(
      `${config.host} is not an address of this machine: set RAMPART_HOST to one of its addresses.`,
    );
  return error as Error;
}
