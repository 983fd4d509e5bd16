import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { missingNodeEnv, missingNodeFlags, NODE_FLAGS } from '../src/node-flags.js';

describe('the V8 flags rampart runs with', () => {
  it('are missing until Node’s arguments or NODE_OPTIONS set them, whatever the value', () => {
    expect(missingNodeFlags([])).toEqual(['--max-semi-space-size=16']);
    expect(missingNodeFlags(['--import', 'tsx'], '--enable-source-maps')).toEqual([
      '--max-semi-space-size=16',
    ]);
    expect(missingNodeFlags(['--max-semi-space-size=16'])).toEqual([]);
    expect(missingNodeFlags(['--max-semi-space-size=32'])).toEqual([]);
    expect(missingNodeFlags([], '  --max-old-space-size=512 --max-semi-space-size=8 ')).toEqual([]);
    // A flag whose name only starts like it is another flag.
    expect(missingNodeFlags(['--max-semi-space-size-x=1'])).toEqual(['--max-semi-space-size=16']);
  });

  it('come with glibc’s mmap threshold unless the environment sets its own', () => {
    expect(missingNodeEnv({})).toEqual({ MALLOC_MMAP_THRESHOLD_: '131072' });
    expect(missingNodeEnv({ PATH: '/usr/bin' })).toEqual({ MALLOC_MMAP_THRESHOLD_: '131072' });
    expect(missingNodeEnv({ MALLOC_MMAP_THRESHOLD_: '65536' })).toEqual({});
    expect(missingNodeEnv({ MALLOC_MMAP_THRESHOLD_: '' })).toEqual({});
  });

  it('keep the young generation of a Node process under 2 × 16 MB while it churns through records', () => {
    // Short-lived records, one in fifty kept a while: the pattern under which Node 24's young
    // generation grows to its maximum.
    const churn = `
      const v8 = require('node:v8');
      const kept = [];
      for (let i = 0; i < 3e6; i++) {
        const record = { title: 'finding ' + i, ports: [i, i + 1] };
        if (i % 50 === 0) kept.push(record);
        if (kept.length > 20000) kept.splice(0, 10000);
      }
      const young = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
      console.log(young.space_size);`;
    const bytes = Number(execFileSync(process.execPath, [...NODE_FLAGS, '-e', churn], { encoding: 'utf8' }));
    expect(bytes).toBeGreaterThan(0);
    expect(bytes).toBeLessThanOrEqual(32 * 1024 * 1024);
  });
});
