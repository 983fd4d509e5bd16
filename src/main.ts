import { Command, CommanderError } from 'commander';
import { backupCommand, restoreCommand } from './cli/backup.js';
import {
  apiKeyCreateCommand,
  apiKeyListCommand,
  apiKeyRevokeCommand,
  demoCommand,
  migrateCommand,
  orgCreateCommand,
  orgListCommand,
  orgRenameCommand,
  orgSetActiveCommand,
  userCreateCommand,
  userInstallationAdminCommand,
  userResetMfaCommand,
  userResetPasswordCommand,
} from './cli/commands.js';
import { ImportNeedsAttentionError, importCommand } from './cli/import.js';
import { intelLoadCommand, intelStatusCommand, intelSyncCommand } from './cli/intel.js';
import { type CliEnv, NoDatabaseError } from './cli/runtime.js';
import { DEFAULT_STATE_FILE, scanNodeCommand } from './cli/scan-node.js';
import { serveCommand } from './cli/serve.js';
import { ConfigError } from './config.js';
import { RestoreRefusedError } from './db/backup/index.js';
import { DatabaseLockedError } from './db/lock.js';
import { AppError } from './problems/app-error.js';
import { VERSION } from './version.js';

/** Exit codes, documented in the README. */
export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  config: 3,
  locked: 4,
  attention: 5,
  noDatabase: 6,
  refused: 7,
} as const;

type Action = (opts: Record<string, unknown>, command: Command) => Promise<void>;

function buildProgram(cli: CliEnv, onServe: (stop: () => Promise<void>) => void): Command {
  const program = new Command('rampart')
    .description('Rampart vulnerability management service')
    .version(VERSION)
    .exitOverride()
    .configureOutput({ writeOut: cli.out.stdout, writeErr: cli.out.stderr })
    .showHelpAfterError();
  const json = (c: Command) => c.option('--json', 'machine-readable output');
  const run =
    (fn: Action) =>
    async (...args: unknown[]): Promise<void> => {
      const command = args[args.length - 1] as Command;
      return fn(command.opts(), command);
    };

  json(program.command('serve').description('start the HTTP server (API, documentation, web app)')).action(
    run(async (o) => {
      const server = await serveCommand(cli, o);
      onServe(server.stop);
    }),
  );
  json(program.command('migrate').description('apply pending database migrations')).action(
    run((o) => migrateCommand(cli, o)),
  );

  const org = program.command('org').description('organisations');
  json(
    org
      .command('create')
      .description('create an organisation')
      .requiredOption('--name <name>', 'its name, unique')
      .option(
        '--admin <email>',
        'its first Admin: a person of another organisation, or a new one (password printed once)',
      ),
  ).action(run((o) => orgCreateCommand(cli, o as never)));
  json(
    org
      .command('rename')
      .description('rename an organisation')
      .argument('<id>', 'the organisation id')
      .requiredOption('--name <name>', 'its new name'),
  ).action(run((o, c) => orgRenameCommand(cli, { ...(o as { name: string }), id: c.args[0] as string })));
  json(
    org
      .command('deactivate')
      .description('deactivate an organisation: its sessions end, its API keys stop, its data is kept')
      .argument('<id>', 'the organisation id'),
  ).action(run((o, c) => orgSetActiveCommand(cli, { ...o, id: c.args[0] as string, active: false })));
  json(
    org
      .command('reactivate')
      .description('reactivate an organisation')
      .argument('<id>', 'the organisation id'),
  ).action(run((o, c) => orgSetActiveCommand(cli, { ...o, id: c.args[0] as string, active: true })));
  json(org.command('list').description('list organisations')).action(run((o) => orgListCommand(cli, o)));

  const user = program.command('user').description('users');
  json(
    user
      .command('create')
      .description('create a user')
      .requiredOption(
        '--email <email>',
        "sign-in email, unique in the organisation; a person's from another organisation adds them here",
      )
      .requiredOption('--role <role>', 'ReadOnly, Analyst, Manager or Admin')
      .option('--password <password>', 'at least 12 characters; without it the user cannot sign in')
      .option('--name <name>', 'display name (default: the email name)')
      .option('--org <orgId>', 'organisation id (default: the first organisation)'),
  ).action(run((o) => userCreateCommand(cli, o as never)));
  json(
    user
      .command('reset-password')
      .description(
        "set a new password for a user (a lost Admin password) and end the user's sessions; " +
          'on the embedded database only while the server is stopped',
      )
      .argument('<email>', "the user's sign-in email")
      .option('--password-stdin', 'read the new password from stdin instead of generating one'),
  ).action(run((o, c) => userResetPasswordCommand(cli, { ...o, email: c.args[0] as string })));
  json(
    user
      .command('reset-mfa')
      .description(
        "remove a user's second factor (a lost phone and recovery codes) and end the user's sessions; " +
          'on the embedded database only while the server is stopped',
      )
      .argument('<email>', "the user's sign-in email"),
  ).action(run((o, c) => userResetMfaCommand(cli, { ...o, email: c.args[0] as string })));

  json(
    user
      .command('installation-admin')
      .description('make a person an installation Admin (creates, renames and deactivates organisations)')
      .argument('<email>', "the person's sign-in email")
      .option('--revoke', 'no longer an installation Admin'),
  ).action(run((o, c) => userInstallationAdminCommand(cli, { ...o, email: c.args[0] as string })));

  const apikey = program.command('apikey').description('API keys');
  json(
    apikey
      .command('create')
      .description('create an API key for a user; the secret is printed once')
      .requiredOption('--user <email>', "the key owner's email")
      .requiredOption('--name <name>', 'what the key is for')
      .option('--expires-in-days <days>', 'expire after this many days'),
  ).action(run((o) => apiKeyCreateCommand(cli, o as never)));
  json(
    apikey
      .command('list')
      .description("list a user's API keys")
      .requiredOption('--user <email>', 'the owner'),
  ).action(run((o) => apiKeyListCommand(cli, o as never)));
  json(
    apikey.command('revoke').description('revoke an API key').argument('<accessKey>', 'its access key'),
  ).action(run((o, c) => apiKeyRevokeCommand(cli, { ...o, accessKey: c.args[0] as string })));
  json(
    program
      .command('backup')
      .description(
        "back up the whole database to a file in Rampart's backup format (pg_dump's plain data-only SQL, made without pg_dump)",
      )
      .option(
        '--output <file>',
        'where to write it, - for stdout (default: rampart-backup-<UTC time>.sql here)',
      ),
  ).action(run((o) => backupCommand(cli, o)));
  json(
    program
      .command('restore')
      .description(
        'restore a backup into an empty database (it refuses one that holds data), then migrate it to this version',
      )
      .argument('<file>', 'the backup, - for stdin'),
  ).action(run((o, c) => restoreCommand(cli, c.args[0] as string, o)));
  json(
    program
      .command('demo')
      .description('load a realistic demo estate (tagged "demo"), or remove it')
      .option('--org <orgId>', 'organisation id (default: the first organisation)')
      .option('--remove', 'remove the demo data instead'),
  ).action(run((o) => demoCommand(cli, o as never)));
  json(
    program
      .command('import')
      .description(
        'import a scanner report (any supported format, gzip welcome) and wait for the result; ' +
          "with --server it goes through that server's API using RAMPART_ACCESS_KEY and RAMPART_SECRET_KEY",
      )
      .argument('<file>', 'the report')
      .option('--format <format>', 'the report format (default: detected from the content)')
      .option(
        '--scope <name>',
        're-import scope: findings of this scope missing from the report become Fixed',
      )
      .option('--server <url>', 'a running Rampart, e.g. https://rampart.example.com')
      .option('--org <orgId>', 'organisation id, without --server (default: the first organisation)'),
  ).action(run((o, c) => importCommand(cli, c.args[0] as string, o as never)));
  const intel = program
    .command('intel')
    .description('vulnerability intelligence (NVD, CVE 5, KEV, EPSS, OSV)');
  json(
    intel
      .command('load')
      .description(
        'load feed files (NVD API 2.0 pages or records, CVE JSON 5, CISA KEV, EPSS CSV, OSV; gzip welcome), or every feed file of a folder',
      )
      .argument('<paths...>', 'files or folders')
      .option('--feed <feed>', 'nvd, cve5, kev, epss or osv (default: detected from each file)'),
  ).action(run((o, c) => intelLoadCommand(cli, c.args as string[], o as never)));
  json(intel.command('status').description('records per feed and the last load of each')).action(
    run((o) => intelStatusCommand(cli, o as never)),
  );
  json(
    intel
      .command('sync')
      .description(
        'sync now from the official sources (or their mirrors) and RAMPART_INTEL_SYNC_URLS, as the schedule does; resumes where a stopped sync stopped',
      )
      .option('--force', 'sync every source, also those synced in the last half period'),
  ).action(run((o) => intelSyncCommand(cli, o as never)));
  json(
    program
      .command('scan-node')
      .description(
        'run a scan node: enrol once with a token from the Scan nodes page, then claim and execute scan runs until SIGTERM/SIGINT',
      )
      .option('--server <url>', 'your Rampart, e.g. https://rampart.example.com')
      .option('--token <token>', 'the one-time enrolment token (needed only the first time)')
      .option('--name <name>', 'how the node is listed (default: scan node)')
      .option(
        '--state <file>',
        `where the node keeps its id and key, mode 0600 (default ./${DEFAULT_STATE_FILE})`,
      )
      .option('--capacity <n>', 'scan runs executed at once, 1 to 64 (default 1)'),
  ).action(run((o) => scanNodeCommand(cli, o as never, onServe)));
  return program;
}

/**
 * Runs one CLI command and returns its exit code; `serve` resolves once listening and reports
 * its stop function through `onServe`.
 */
export async function runCli(
  argv: string[],
  cli: CliEnv,
  onServe: (stop: () => Promise<void>) => void = () => {},
): Promise<number> {
  const program = buildProgram(cli, onServe);
  const wantsJson = argv.includes('--json');
  const fail = (code: number, message: string, extra: Record<string, unknown> = {}) => {
    cli.out.stderr(wantsJson ? `${JSON.stringify({ Error: message, ...extra })}\n` : `error: ${message}\n`);
    return code;
  };
  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (error instanceof ConfigError) return fail(EXIT.config, error.message, { Problems: error.problems });
    if (error instanceof DatabaseLockedError) return fail(EXIT.locked, error.message);
    if (error instanceof NoDatabaseError) return fail(EXIT.noDatabase, error.message);
    if (error instanceof ImportNeedsAttentionError) return fail(EXIT.attention, error.message);
    if (error instanceof RestoreRefusedError) return fail(EXIT.refused, error.message);
    if (error instanceof AppError) return fail(EXIT.failed, error.detail, { Status: error.problem.status });
    return fail(EXIT.failed, (error as Error).message ?? String(error));
  }
}

/** The commands that keep running until a signal stops them (they report `stop` through onServe). */
const LONG_RUNNING = new Set(['serve', 'scan-node']);

async function main(): Promise<void> {
  const cli: CliEnv = {
    env: process.env,
    out: { stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t) },
    stdin: process.stdin,
    stdoutStream: process.stdout,
    exit: (code) => process.exit(code),
  };
  const argv = process.argv.slice(2);
  let stop: (() => Promise<void>) | undefined;
  let signalled: string | undefined;
  const shutdown = (signal: string, stopNow: () => Promise<void>) => {
    process.stderr.write(`${signal} received: shutting down\n`);
    stopNow().then(
      // A shutdown Rampart began itself (its embedded database server lost) set a failing status.
      () => process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0),
      (error: unknown) => {
        process.stderr.write(`shutdown failed: ${error instanceof Error ? error.message : String(error)}\n`);
        process.exit(1);
      },
    );
  };
  // Listened for before the server starts, not once it has: a SIGTERM sent as soon as it says it
  // is up (a supervisor, a test) would otherwise find no handler and kill it outright. One that
  // comes while it starts is kept until the start is over, then shuts it down gracefully.
  // A second signal while shutting down (an impatient Ctrl-C) ends the process at once, through
  // process.exit, so that the embedded database server is still told to stop on the way out.
  let shuttingDown = false;
  if (LONG_RUNNING.has(argv[0] ?? ''))
    for (const signal of ['SIGINT', 'SIGTERM'] as const)
      process.on(signal, () => {
        if (shuttingDown) {
          process.stderr.write(`${signal} received again: exiting now\n`);
          process.exit(1);
        }
        if (stop) {
          shuttingDown = true;
          shutdown(signal, stop);
        } else if (signalled === undefined) signalled = signal;
      });
  const code = await runCli(argv, cli, (stopServer) => {
    stop = stopServer;
    if (signalled) {
      shuttingDown = true;
      shutdown(signalled, stopServer);
    }
  });
  if (code !== EXIT.ok) process.exit(code);
}

const invokedDirectly = process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (invokedDirectly || process.env.RAMPART_CLI_ENTRY === '1') void main();
