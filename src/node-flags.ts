/**
 * The V8 flags `rampart` runs with: bin/rampart.js starts Node again with them (and NODE_ENV)
 * when they are missing (bench:import runs its measuring processes with them too).
 *
 * `--max-semi-space-size=16`: the young generation's two halves are at most 16 MB each, as they
 * were up to Node 22. Node 24 sizes them from the heap limit, up to 64 MB each on this machine,
 * and an import (a stream of short-lived records, some of which survive a collection or two)
 * grows them to that: 128 MB of the process's memory, committed for good, against a live heap
 * under 100 MB (bench:import: peak RSS 333-422 MB without the flag, 238-280 MB with it, for the
 * 100,000-finding Trivy import on PostgreSQL; the import's speed within the noise).
 */
export const NODE_FLAGS: readonly string[] = ['--max-semi-space-size=16'];

/**
 * What the C library (glibc) reads from the environment when the process starts.
 *
 * `MALLOC_MMAP_THRESHOLD_=131072`: blocks of 128 KB and more are mapped on their own and given
 * back to the system when freed. glibc's default raises that threshold each time such a block is
 * freed, up to 32 MB, after which the large buffers of a busy process (query parameters of a
 * staged batch, the embedded database's messages) are carved out of per-thread arenas that keep
 * the memory once freed. bench:import on the embedded database: 449 MB before the first import
 * with glibc's default, 333 MB with it, and 491–509 MB against 357–376 MB during a 100,000-finding
 * Trivy import. Other C libraries ignore it.
 */
export const NODE_ENV: Readonly<Record<string, string>> = { MALLOC_MMAP_THRESHOLD_: '131072' };

/** The variables of NODE_ENV that `env` does not set: an operator's own value wins. */
export function missingNodeEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  return Object.fromEntries(Object.entries(NODE_ENV).filter(([name]) => env[name] === undefined));
}

const flagName = (flag: string) => flag.split('=')[0];

/**
 * The flags of NODE_FLAGS that neither Node's own arguments nor NODE_OPTIONS set: an operator's
 * own value of a flag wins.
 */
export function missingNodeFlags(execArgv: readonly string[], nodeOptions = ''): string[] {
  const given = new Set([...execArgv, ...nodeOptions.split(/\s+/)].filter(Boolean).map(flagName));
  return NODE_FLAGS.filter((flag) => !given.has(flagName(flag)));
}

/** What `restartWithNodeSettings` needs of the running process (the real one, or a test's). */
export interface RunningNode {
  execPath: string;
  execArgv: readonly string[];
  argv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  /** Node's `process.execve`: absent where Node cannot replace its process (Windows). */
  execve?: (file: string, args: string[], env: Record<string, string | undefined>) => void;
}

/**
 * Starts Node again in this process with the flags and environment above when they are missing
 * (V8 and glibc read them only at start), once: the restarted process carries
 * RAMPART_NODE_FLAGS=applied, and an operator's RAMPART_NODE_FLAGS (`off`) keeps it from
 * happening. Returns without doing anything when nothing is missing or it cannot restart;
 * otherwise `execve` does not return.
 */
export function restartWithNodeSettings(node: RunningNode): void {
  if (node.env.RAMPART_NODE_FLAGS || typeof node.execve !== 'function') return;
  const flags = missingNodeFlags(node.execArgv, node.env.NODE_OPTIONS);
  const env = missingNodeEnv(node.env);
  if (flags.length === 0 && Object.keys(env).length === 0) return;
  node.execve(node.execPath, [node.execPath, ...flags, ...node.execArgv, ...node.argv.slice(1)], {
    ...node.env,
    ...env,
    RAMPART_NODE_FLAGS: 'applied',
  });
}
