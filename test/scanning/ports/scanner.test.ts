import { afterEach, describe, expect, it } from 'vitest';
import {
  CLOSED_LIST_LIMIT,
  type HostPorts,
  PortRange,
  type PortScanOptions,
  scanPorts,
} from '../../../src/scanning/ports/index.js';
import type { ScanProgress, TargetRefusal } from '../../../src/scanning/types.js';
import { closedPort, countingListener, silentPorts } from '../discovery/loopback.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Run {
  hosts: HostPorts[];
  refused: Array<[string, TargetRefusal]>;
  progress: ScanProgress[];
  options: PortScanOptions;
}

function collector(extra: Partial<PortScanOptions> = {}): Run {
  const run: Run = {
    hosts: [],
    refused: [],
    progress: [],
    options: {
      signal: new AbortController().signal,
      check: () => null,
      timeoutMs: 1000,
      retries: 0,
      maxInFlight: 16,
      connectionsPerSecond: 10_000,
      perHostInFlight: 4,
      onHost: (h) => {
        run.hosts.push(h);
      },
      onRefused: (a, r) => run.refused.push([a, r]),
      onProgress: (p) => run.progress.push(p),
      ...extra,
    },
  };
  return run;
}

async function listeners(address: string, count: number) {
  const all = [];
  for (let i = 0; i < count; i++) {
    const l = await countingListener(address);
    cleanups.push(l.close);
    all.push(l);
  }
  return all;
}

describe('port scans on 127.0.0.0/8', () => {
  it('reports open and closed ports of every host, once each', async () => {
    const [a, b] = await listeners('127.88.1.2', 2);
    const closed = await closedPort('127.88.1.2');
    const run = collector();

    const result = await scanPorts(['127.88.1.2', '127.88.1.3'], [closed, b!.port, a!.port], run.options);

    expect(result).toEqual({ scanned: 2, refused: 0, found: 1, budgetExhausted: null });
    const byAddress = new Map(run.hosts.map((h) => [h.address, h]));
    expect(run.hosts).toHaveLength(2);
    expect(byAddress.get('127.88.1.2')).toEqual({
      address: '127.88.1.2',
      open: [a!.port, b!.port].sort((x, y) => x - y),
      closed: 1,
      closedPorts: [closed],
      filtered: 0,
      unscanned: [],
      budgetExhausted: null,
    });
    // Nothing listens on .3: every port refuses.
    expect(byAddress.get('127.88.1.3')).toMatchObject({ open: [], closed: 3, filtered: 0, unscanned: [] });
    expect(run.progress.at(-1)).toEqual({ done: 2, total: 2, found: 1 });
    expect(a!.accepted).toHaveLength(1);
  });

  it('counts closed ports without listing them past the limit, over a streamed list of hosts', async () => {
    const run = collector({ perHostInFlight: 8 });
    async function* hosts() {
      yield '127.88.2.1';
    }
    // A range nothing listens on (ports below 1024 on an unused loopback address refuse).
    const ports = new PortRange(100, 100 + CLOSED_LIST_LIMIT);
    const result = await scanPorts(hosts(), ports, run.options);
    expect(result.scanned).toBe(1);
    expect(run.hosts[0]).toMatchObject({ open: [], closed: CLOSED_LIST_LIMIT + 1, closedPorts: null });
  });

  it('never connects to a refused address, and says why it was skipped', async () => {
    const [refused] = await listeners('127.88.3.2', 1);
    const [allowed] = await listeners('127.88.3.3', 1);
    const run = collector({
      check: (address) =>
        address === '127.88.3.2' ? { rule: 'Excluded', message: `${address} is excluded` } : null,
    });

    const result = await scanPorts(
      ['127.88.3.2', '127.88.3.3', 'not-an-ip'],
      [refused!.port, allowed!.port],
      run.options,
    );

    expect(result).toMatchObject({ scanned: 1, refused: 2 });
    expect(refused!.accepted).toHaveLength(0);
    expect(allowed!.accepted).toHaveLength(1);
    expect(run.refused.map(([a, r]) => [a, r.rule])).toEqual([
      ['127.88.3.2', 'Excluded'],
      ['not-an-ip', 'Syntax'],
    ]);
    expect(run.hosts.map((h) => h.address)).toEqual(['127.88.3.3']);
  });

  it('stops a host when its budget is spent and keeps what it found', async () => {
    const [open] = await listeners('127.88.4.2', 1);
    // Each reading of the clock moves it on 10 ms: probes one at a time, a budget of 100 ms
    // covers the first few ports and never all 60.
    let now = 0;
    const clock = () => (now += 10);
    const ports = [open!.port, ...new PortRange(200, 258).toArray()];
    const run = collector({ clock, hostBudgetMs: 100, perHostInFlight: 1, maxInFlight: 1 });

    const result = await scanPorts(['127.88.4.2', '127.88.4.3'], ports, run.options);

    expect(result).toMatchObject({ scanned: 2, budgetExhausted: null });
    for (const host of run.hosts) {
      expect(host.budgetExhausted).toBe('host');
      expect(host.unscanned.length).toBeGreaterThan(0);
      expect(host.unscanned.length).toBeLessThan(ports.length);
      // Every port is accounted for exactly once.
      expect(host.open.length + host.closed + host.filtered + host.unscanned.length).toBe(ports.length);
    }
    // The open port came first: found before the budget ran out, and kept.
    expect(run.hosts.find((h) => h.address === '127.88.4.2')!.open).toEqual([open!.port]);
  });

  it('stops the run when its budget is spent: the host under way reports in part, no new host starts', async () => {
    const [open] = await listeners('127.88.5.2', 1);
    let now = 0;
    const clock = () => (now += 10);
    const ports = [open!.port, ...new PortRange(300, 358).toArray()];
    const run = collector({ clock, runBudgetMs: 150, perHostInFlight: 1, maxInFlight: 1 });

    const result = await scanPorts(['127.88.5.2', '127.88.5.3'], ports, run.options);

    expect(result).toEqual({ scanned: 1, refused: 0, found: 1, budgetExhausted: 'run' });
    expect(run.hosts).toHaveLength(1);
    expect(run.hosts[0]).toMatchObject({ address: '127.88.5.2', open: [open!.port], budgetExhausted: 'run' });
    expect(run.hosts[0]!.unscanned.length).toBeGreaterThan(0);
  });

  it('reports silent ports as filtered, and as unscanned when the host budget cut their wait', async () => {
    const silent = await silentPorts(['127.88.6.2'], 2);
    cleanups.push(silent.close);
    const [open] = await listeners('127.88.6.2', 1);

    // Timeouts long enough for the open port to connect on a loaded machine; the silent ones
    // still time out (twice) within seconds.
    const full = collector({ timeoutMs: 1000, retries: 1 });
    await scanPorts(['127.88.6.2'], [open!.port, ...silent.ports], full.options);
    expect(full.hosts[0]).toMatchObject({
      open: [open!.port],
      filtered: 2,
      unscanned: [],
      budgetExhausted: null,
    });

    // A budget much shorter than one connect's timeout: the silent ports are cut, not called
    // filtered (long enough for the open port, first, to connect on a loaded machine).
    const cut = collector({ timeoutMs: 60_000, hostBudgetMs: 1500, perHostInFlight: 1 });
    await scanPorts(['127.88.6.2'], [open!.port, ...silent.ports], cut.options);
    expect(cut.hosts[0]).toMatchObject({
      open: [open!.port],
      filtered: 0,
      unscanned: [...silent.ports].sort((a, b) => a - b),
      budgetExhausted: 'host',
    });
  });

  it('rejects with the reason when aborted, and starts nothing after', async () => {
    const [first] = await listeners('127.88.7.2', 1);
    const [second] = await listeners('127.88.7.3', 1);
    const controller = new AbortController();
    const run = collector({
      signal: controller.signal,
      maxInFlight: 1,
      perHostInFlight: 1,
      onHost: () => controller.abort(new Error('stopped by the user')),
    });

    await expect(
      scanPorts(['127.88.7.2', '127.88.7.3'], [first!.port, second!.port], run.options),
    ).rejects.toThrow('stopped by the user');
    expect(second!.accepted).toHaveLength(0);
  });

  it.each([
    [{ timeoutMs: 0 }, 'timeoutMs'],
    [{ retries: -1 }, 'retries'],
    [{ maxInFlight: 1.5 }, 'maxInFlight'],
    [{ connectionsPerSecond: 0 }, 'connectionsPerSecond'],
    [{ perHostInFlight: 0 }, 'perHostInFlight'],
    [{ hostBudgetMs: -5 }, 'hostBudgetMs'],
    [{ runBudgetMs: Number.NaN }, 'runBudgetMs'],
  ] as Array<[Partial<PortScanOptions>, string]>)('refuses bad options: %j', async (bad, field) => {
    const run = collector(bad);
    await expect(scanPorts(['127.88.8.2'], [80], run.options)).rejects.toThrow(RangeError);
    await expect(scanPorts(['127.88.8.2'], [80], run.options)).rejects.toThrow(field);
  });

  it.each([[[]], [[0]], [[65536]], [[80, 80]], [[1.5]]])('refuses the port list %j', async (ports) => {
    await expect(scanPorts(['127.88.8.2'], ports, collector().options)).rejects.toThrow(/port scan: ports/);
  });
});
