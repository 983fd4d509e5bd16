import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  missingNodeEnv,
  missingNodeFlags,
  NODE_FLAGS,
  type RunningNode,
  restartWithNodeSettings,
} from '../src/node-flags.js';

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

describe('restartWithNodeSettings', () => {
  const calls: { file: string; args: string[]; env: Record<string, string | undefined> }[] = [];
  const node = (over: Partial<RunningNode> = {}): RunningNode => ({
    execPath: '/usr/bin/node',
    execArgv: ['--enable-source-maps'],
    argv: ['/usr/bin/node', '/opt/rampart/bin/rampart.js', 'serve', '--json'],
    env: { PATH: '/usr/bin' },
    execve: (file, args, env) => {
      calls.push({ file, args, env });
    },
    ...over,
  });

  it('starts Node again with the missing flags before its own, the same arguments, and the settings in the environment', () => {
    calls.length = 0;
    restartWithNodeSettings(node());
    expect(calls).toEqual([
      {
        file: '/usr/bin/node',
        args: [
          '/usr/bin/node',
          '--max-semi-space-size=16',
          '--enable-source-maps',
          '/opt/rampart/bin/rampart.js',
          'serve',
          '--json',
        ],
        env: { PATH: '/usr/bin', MALLOC_MMAP_THRESHOLD_: '131072', RAMPART_NODE_FLAGS: 'applied' },
      },
    ]);
  });

  it('restarts for the environment alone, keeping the operator’s own flag', () => {
    calls.length = 0;
    restartWithNodeSettings(node({ env: { NODE_OPTIONS: '--max-semi-space-size=64' } }));
    expect(calls).toHaveLength(1);
    expect(calls[0]!.args).not.toContain('--max-semi-space-size=16');
    expect(calls[0]!.env.MALLOC_MMAP_THRESHOLD_).toBe('131072');
  });

  it('does nothing once restarted, when turned off, when nothing is missing, or where Node cannot', () => {
    calls.length = 0;
    restartWithNodeSettings(node({ env: { RAMPART_NODE_FLAGS: 'applied' } }));
    restartWithNodeSettings(node({ env: { RAMPART_NODE_FLAGS: 'off' } }));
    restartWithNodeSettings(
      node({ execArgv: ['--max-semi-space-size=16'], env: { MALLOC_MMAP_THRESHOLD_: '131072' } }),
    );
    restartWithNodeSettings(node({ execve: undefined }));
    expect(calls).toEqual([]);
  });
});
