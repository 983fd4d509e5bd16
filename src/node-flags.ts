/**
 * The V8 flags `rampart` runs with: bin/rampart.js starts Node again with them when they are
 * missing (bench:import runs its measuring processes with them too).
 *
 * `--max-semi-space-size=16`: the young generation's two halves are at most 16 MB each, as they
 * were up to Node 22. Node 24 sizes them from the heap limit, up to 64 MB each on this machine,
 * and an import (a stream of short-lived records, some of which survive a collection or two)
 * grows them to that: 128 MB of the process's memory, committed for good, against a live heap
 * under 100 MB (bench:import: peak RSS 333-422 MB without the flag, 238-280 MB with it, for the
 * 100,000-finding Trivy import on PostgreSQL; the import's speed within the noise).
 */
export const NODE_FLAGS: readonly string[] = ['--max-semi-space-size=16'];

const flagName = (flag: string) => flag.split('=')[0];

/**
 * The flags of NODE_FLAGS that neither Node's own arguments nor NODE_OPTIONS set: an operator's
 * own value of a flag wins.
 */
export function missingNodeFlags(execArgv: readonly string[], nodeOptions = ''): string[] {
  const given = new Set([...execArgv, ...nodeOptions.split(/\s+/)].filter(Boolean).map(flagName));
  return NODE_FLAGS.filter((flag) => !given.has(flagName(flag)));
}
