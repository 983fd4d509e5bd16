import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Configuration } from '../../../src/intel/types.js';

export const NVD_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'fixtures', 'intel', 'nvd');

/** The parts of an NVD API 2.0 `cve` object the matcher reads. */
export interface NvdCve {
  id: string;
  vulnStatus: string;
  configurations?: Configuration[];
}

export function nvd(id: string): NvdCve {
  return JSON.parse(readFileSync(join(NVD_DIR, `${id}.json`), 'utf8')) as NvdCve;
}

export function allNvd(): NvdCve[] {
  return readdirSync(NVD_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => nvd(f.replace(/\.json$/, '')));
}
