import { afterEach, describe, expect, it } from 'vitest';
import { readSpec } from '../../../src/scanning/contract.js';
import { builtInExecutors } from '../../../src/scanning/node/executors.js';
import { systemExecutor } from '../../../src/scanning/node/system-executor.js';
import {
  type RunContext,
  refusedAddressOf,
  type ScanProgress,
  type SystemHostResult,
  type SystemSpec,
} from '../../../src/scanning/types.js';
import { type Running, tcpServer } from './servers.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function context() {
  const emitted: unknown[] = [];
  const progress: ScanProgress[] = [];
  const logs: Array<[string, Record<string, unknown> | undefined]> = [];
  const run: RunContext = {
    signal: new AbortController().signal,
    emit: async (items) => {
      emitted.push(...items);
    },
    progress: (p) => progress.push(p),
    log: (m, d) => logs.push([m, d]),
  };
  return { run, emitted, progress, logs };
}

function spec(port: number, extra: Partial<SystemSpec> = {}): SystemSpec {
  return {
    targets: [{ range: '127.0.0.1-127.0.0.2' }],
    exclusions: [],
    policy: { allowed: ['127.0.0.1/32'], excluded: [], allowLoopback: true },
    template: {
      ports: String(port),
      timeoutMs: 1000,
      retries: 0,
      maxInFlight: 8,
      connectionsPerSecond: 100,
      perHostInFlight: 2,
      portBudgetMs: 10_000,
      hostBudgetMs: 30_000,
      runBudgetMs: 60_000,
      serviceDetection: true,
      tlsChecks: false,
      safeChecks: true,
      useNmapVersionDetection: false,
    },
    ...extra,
  };
}

async function sshServer(address: string): Promise<Running> {
  const server = await tcpServer(address, (s) => s.write('SSH-1.99-OpenSSH_3.9p1\r\n'));
  cleanups.push(server.close);
  return server;
}

describe('the System executor', () => {
  it('is one of the built-in executors', () => {
    expect(builtInExecutors().has('System')).toBe(true);
  });

  it('scans allowed addresses, refuses the others before any packet, emits each host', async () => {
    const allowed = await sshServer('127.0.0.1');
    const ctx = context();
    await systemExecutor({ now: () => new Date('2031-01-01T00:00:00Z') })(spec(allowed.port), ctx.run);
    const hosts = ctx.emitted.filter((i) => !refusedAddressOf(i)) as SystemHostResult[];
    expect(hosts.map((h) => h.address)).toEqual(['127.0.0.1']);
    expect(hosts[0]!.checks.map((c) => c.checkId)).toContain('ssh.protocol-1');
    expect(ctx.logs.some(([m, d]) => m === 'address refused' && d?.address === '127.0.0.2')).toBe(true);
    // The refusal is a result too, so that the run names it.
    expect(ctx.emitted.map(refusedAddressOf).filter(Boolean)).toEqual([
      {
        refused: true,
        address: '127.0.0.2',
        rule: 'NotAllowed',
        message: '127.0.0.2 is not inside the allowed scan targets.',
      },
    ]);
    expect(ctx.progress.at(-1)).toEqual({ done: 2, total: 2, found: 1 });
    expect(ctx.logs.at(-1)?.[0]).toBe('system scan finished');
  });

  it('fails a run whose every address was refused, naming them, rather than end it clean', async () => {
    const ctx = context();
    const run = spec(22, {
      targets: [{ range: '127.0.0.2' }, { range: 'nowhere.lab.test' }],
      policy: { allowed: ['127.0.0.1/32', 'nowhere.lab.test'], excluded: [], allowLoopback: false },
    });
    const resolve = async (name: string): Promise<string[]> => {
      throw new Error(`no such name ${name}`);
    };
    await expect(systemExecutor({ resolve })(run, ctx.run)).rejects.toThrow(
      /^Nothing was scanned: every address of this run was refused \(2\)\. 127\.0\.0\.2 is in the loopback block 127\.0\.0\.0\/8, which is scanned only when the server sets RAMPART_SCAN_ALLOW_LOOPBACK=true\. The host name nowhere\.lab\.test did not resolve \(no such name nowhere\.lab\.test\)\.$/,
    );
    expect(ctx.emitted.map((i) => refusedAddressOf(i)?.rule)).toEqual(['Loopback', 'Unresolved']);
  });

  it('honours portsOverride', async () => {
    const server = await sshServer('127.0.0.1');
    const ctx = context();
    await systemExecutor()(spec(1, { portsOverride: String(server.port) }), ctx.run);
    const hosts = ctx.emitted.filter((i) => !refusedAddressOf(i)) as SystemHostResult[];
    expect(hosts[0]!.openPorts).toEqual([server.port]);
  });

  it('asks for nmap only when the template wants it, and says when it is missing', async () => {
    const server = await sshServer('127.0.0.1');
    let asked = 0;
    const nmapPath = async () => {
      asked++;
      return null;
    };
    const ctx = context();
    await systemExecutor({ nmapPath })(spec(server.port), ctx.run);
    expect(asked).toBe(0);
    const withNmap = spec(server.port);
    withNmap.template.useNmapVersionDetection = true;
    await systemExecutor({ nmapPath })(withNmap, ctx.run);
    expect(asked).toBe(1);
    expect(ctx.logs.some(([m]) => m.startsWith('nmap is not installed'))).toBe(true);
  });

  it.each([
    ['nothing', null],
    ['a string', 'scan'],
    ['no targets', { ...spec(22), targets: undefined }],
    ['a target without a range', { ...spec(22), targets: [{ name: 'x' }] }],
    ['exclusions that are not strings', { ...spec(22), exclusions: [1] }],
    ['no policy', { ...spec(22), policy: undefined }],
    ['a policy without allowLoopback', { ...spec(22), policy: { allowed: [], excluded: [] } }],
    ['no template', { ...spec(22), template: undefined }],
    ['a portsOverride that is not text', { ...spec(22), portsOverride: 22 }],
  ])('refuses a spec with %s, as the node checks it against the contract', async (_what, raw) => {
    const claimed = async () => systemExecutor()(readSpec('System', raw), context().run);
    await expect(claimed()).rejects.toThrow(/not a System spec this node can run/);
  });

  it('names where a spec breaks the contract', async () => {
    const claimed = async (raw: unknown) => systemExecutor()(readSpec('System', raw), context().run);
    await expect(claimed({ ...spec(22), targets: [{ name: 'x' }] })).rejects.toThrow(
      /\/targets\/0\/range is required/,
    );
    await expect(claimed({ ...spec(22), portsOverride: '22,70000' })).rejects.toThrow(/\/portsOverride /);
    const bad = spec(22);
    (bad.template as unknown as Record<string, unknown>).hostBudgetMs = 0;
    await expect(claimed(bad)).rejects.toThrow(/\/template\/hostBudgetMs must be >= 1/);
  });

  it('refuses a bad template naming the field', async () => {
    const bad = spec(22);
    (bad.template as unknown as Record<string, unknown>).hostBudgetMs = 0;
    await expect(systemExecutor()(bad, context().run)).rejects.toThrow(/hostBudgetMs/);
  });
});
