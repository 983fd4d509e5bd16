import fs from 'node:fs/promises';
import path from 'node:path';
import { systemClock } from '../lib/clock.js';
import { AppError } from '../problems/app-error.js';
import { Problems } from '../problems/catalogue.js';
import { ScanNodeAgent } from '../scanning/node/agent.js';
import { builtInExecutors } from '../scanning/node/executors.js';
import { enrolOverHttp, HttpNodeTransport } from '../scanning/node/http-transport.js';
import { VERSION } from '../version.js';
import type { CliEnv } from './runtime.js';

/** Where the node keeps its id and key unless --state says otherwise: the current folder. */
export const DEFAULT_STATE_FILE = 'rampart-scan-node.json';

export interface ScanNodeOptions {
  server?: string;
  token?: string;
  name?: string;
  state?: string;
  capacity?: string;
  json?: boolean;
}

/** What the node keeps between starts (mode 0600: it holds the node's key). */
export interface ScanNodeState {
  ServerUrl: string;
  NodeId: string;
  NodeKey: string;
}

const usage = (message: string) => AppError.of(Problems.ValidationFailed, message);

function checkOptions(opts: ScanNodeOptions): { server: string; capacity: number } {
  if (!opts.server)
    throw usage('--server is required: the URL of your Rampart, e.g. https://rampart.example.com');
  let url: URL;
  try {
    url = new URL(opts.server);
  } catch {
    throw usage(`--server must be an http(s) URL, not '${opts.server}'.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw usage(`--server must be an http(s) URL, not '${opts.server}'.`);
  const capacity = opts.capacity === undefined ? 1 : Number(opts.capacity);
  if (!/^\d+$/.test(opts.capacity ?? '1') || capacity < 1 || capacity > 64)
    throw usage(`--capacity must be a whole number from 1 to 64, not '${opts.capacity}'.`);
  if (opts.name !== undefined && (opts.name.trim().length === 0 || opts.name.length > 100))
    throw usage('--name must have 1 to 100 characters.');
  return { server: opts.server.replace(/\/+$/, ''), capacity };
}

async function readState(file: string): Promise<ScanNodeState | undefined> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw usage(`Cannot read the state file ${file}: ${(error as Error).message}`);
  }
  try {
    const state = JSON.parse(text) as ScanNodeState;
    if (
      typeof state.ServerUrl === 'string' &&
      typeof state.NodeId === 'string' &&
      typeof state.NodeKey === 'string'
    )
      return state;
  } catch {}
  throw usage(`The state file ${file} is not one this command wrote: move it away to enrol again.`);
}

async function writeState(file: string, state: ScanNodeState): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  await fs.chmod(file, 0o600);
}

/**
 * `rampart scan-node`: enrols once with --token (keeping the node's id and key in the state file),
 * then heartbeats, claims and executes scan runs until `stop` (SIGTERM/SIGINT), which stops its
 * runs and reports them Stopped. Reports `stop` through `onStarted`; resolves when the node ends.
 */
export async function scanNodeCommand(
  cli: CliEnv,
  opts: ScanNodeOptions,
  onStarted: (stop: () => Promise<void>) => void,
): Promise<void> {
  const { server, capacity } = checkOptions(opts);
  const stateFile = path.resolve(opts.state ?? DEFAULT_STATE_FILE);
  const executors = cli.scanExecutors ?? builtInExecutors(cli.clock ?? systemClock);
  const kinds = [...executors.keys()];
  let state = await readState(stateFile);
  if (state && state.ServerUrl !== server)
    throw usage(
      `The state file ${stateFile} belongs to the node enrolled at ${state.ServerUrl}: pass --state with another file.`,
    );
  if (!state) {
    if (!opts.token)
      throw usage(
        `--token is required to enrol (no state file at ${stateFile}): an Admin creates one on the Scan nodes page.`,
      );
    const enrolled = await enrolOverHttp(server, opts.token, {
      ...(opts.name ? { name: opts.name.trim() } : {}),
      kinds,
      version: VERSION,
      capacity,
    });
    state = { ServerUrl: server, NodeId: enrolled.nodeId, NodeKey: enrolled.nodeKey };
    await writeState(stateFile, state);
  }
  const log = (message: string, details?: Record<string, unknown>) =>
    cli.out.stderr(`${JSON.stringify({ msg: message, ...details })}\n`);
  const agent = new ScanNodeAgent({
    transport: new HttpNodeTransport({ serverUrl: server, nodeKey: state.NodeKey }),
    executors,
    capacity,
    version: VERSION,
    clock: cli.clock ?? systemClock,
    log,
  });
  agent.start();
  onStarted(() => agent.stop());
  cli.out.stdout(
    opts.json
      ? `${JSON.stringify({ NodeId: state.NodeId, ServerUrl: server, StateFile: stateFile, Kinds: kinds })}\n`
      : `Scan node ${state.NodeId} is running against ${server} (state in ${stateFile}); kinds: ${kinds.join(', ') || 'none yet'}.\n`,
  );
  await agent.ended;
  if (agent.fatal) throw new Error(`The server refused this node: ${agent.fatal.message}`);
}
