// The system scan template as a node receives it: every field checked, since it comes over the
// network to a remote node. Errors are RangeErrors naming the field.

import { portListOf } from '../ports/index.js';
import type { SystemTemplate } from '../types.js';

const INTEGERS = [
  'timeoutMs',
  'maxInFlight',
  'perHostInFlight',
  'portBudgetMs',
  'hostBudgetMs',
  'runBudgetMs',
] as const satisfies readonly (keyof SystemTemplate)[];
const FLAGS = [
  'serviceDetection',
  'tlsChecks',
  'safeChecks',
  'useNmapVersionDetection',
] as const satisfies readonly (keyof SystemTemplate)[];
/** A day: no budget or timeout of a scan is longer. */
const MAX_MS = 86_400_000;

export function validateSystemTemplate(t: unknown): asserts t is SystemTemplate {
  if (typeof t !== 'object' || t === null || Array.isArray(t))
    throw new RangeError('system template must be an object');
  const template = t as Record<string, unknown>;
  const fail = (field: string, rule: string): never => {
    throw new RangeError(`system template: ${field} ${rule}`);
  };
  if (typeof template.ports !== 'string') fail('ports', 'must be text (top1000, all or a list)');
  try {
    portListOf(template.ports as string);
  } catch (error) {
    fail('ports', `is not a port list: ${(error as Error).message}`);
  }
  for (const field of INTEGERS) {
    const value = template[field];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_MS)
      fail(field, `must be an integer from 1 to ${MAX_MS}`);
  }
  const retries = template.retries;
  if (typeof retries !== 'number' || !Number.isInteger(retries) || retries < 0 || retries > 10)
    fail('retries', 'must be an integer from 0 to 10');
  const rate = template.connectionsPerSecond;
  if (typeof rate !== 'number' || !Number.isFinite(rate) || rate <= 0 || rate > 1_000_000)
    fail('connectionsPerSecond', 'must be a number above 0 and at most 1000000');
  for (const field of FLAGS) if (typeof template[field] !== 'boolean') fail(field, 'must be true or false');
}

/** The ports a run scans: its override (a Verify run) or the template's. */
export function runPorts(template: SystemTemplate, portsOverride: string | null | undefined) {
  if (portsOverride === undefined || portsOverride === null) return portListOf(template.ports);
  try {
    return portListOf(portsOverride);
  } catch (error) {
    throw new RangeError(`portsOverride is not a port list: ${(error as Error).message}`);
  }
}
