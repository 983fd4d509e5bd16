import { buildApp } from '../app.js';
import type { ServiceContext } from '../modules/context.js';
import type { JsonFlag } from './commands.js';
import { type CliEnv, openRuntime, readConfig } from './runtime.js';

const SYSTEM: ServiceContext['actor'] = { type: 'system', id: null };

export interface RunningServer {
  url: string;
  /** Drains requests, closes the database and releases it. */
  stop(): Promise<void>;
}

/** Starts the HTTP server. Resolves once it listens; `stop` shuts it down gracefully. */
export async function serveCommand(cli: CliEnv, opts: JsonFlag): Promise<RunningServer> {
  const config = readConfig(cli);
  const rt = await openRuntime(cli, 'serve', config);
  try {
    const admin = await rt.services.users.ensureAdmin(
      { organizationId: rt.firstOrganization.id, actor: SYSTEM },
      config.adminEmail,
      config.adminPassword,
    );
    const { app } = await buildApp({ config, database: rt.database });
    await app.listen({ port: config.port, host: config.host });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const url = cli.env.RAMPART_BASE_URL ? config.baseUrl : `http://localhost:${port}`;
    const lines = [
      `Rampart is running at ${url}`,
      `  database: ${rt.database.kind === 'embedded' ? `embedded (PGlite) in ${config.dataDir}` : 'PostgreSQL (DATABASE_URL)'}`,
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
        const force = setTimeout(() => {
          app.log.error('shutdown timed out; exiting');
          process.exit(1);
        }, config.shutdownTimeoutSeconds * 1000);
        force.unref();
        try {
          await app.close();
        } finally {
          await rt.close();
          clearTimeout(force);
        }
      })();
      return stopping;
    };
    return { url, stop };
  } catch (error) {
    await rt.close();
    throw error;
  }
}
