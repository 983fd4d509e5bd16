// A host's ports split over worker threads (threads.ts): the same answers as on one thread, the
// run's limits kept by all threads together, and no thread left once a scan stops.

import { afterEach, describe, expect, it } from 'vitest';
import {
  CLOSED_LIST_LIMIT,
  type HostPorts,
  PortRange,
  type PortScanOptions,
  scanPorts,
} from '../../../src/scanning/ports/index.js';
import { liveThreads, PortThreads } from '../../../src/scanning/ports/threads.js';
import { TokenBucket } from '../../../src/scanning/runtime/limits.js';
import { closedPort, countingListener, silentPorts, synSentTo } from '../discovery/loopback.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function options(extra: Partial<PortScanOptions> & Pick<PortScanOptions, 'onHost'>): PortScanOptions {
  return {
    signal: new AbortController().signal,
    check: () => null,
    timeoutMs: 1000,
    retries: 0,
    maxInFlight: 64,
    connectionsPerSecond: 10_000,
    perHostInFlight: 16,
    ...extra,
  };
}

/** One host's result, and how many port-scan threads were seen running while it was scanned. */
async function scanOne(address: string, ports: number[] | PortRange, extra: Partial<PortScanOptions>) {
  let host: HostPorts | null = null;
  let threadsSeen = 0;
  const watch = setInterval(() => {
    threadsSeen = Math.max(threadsSeen, liveThreads());
  }, 2);
  try {
    await scanPorts([address], ports, {
      ...options({
        onHost: (h) => {
          host = h;
        },
      }),
      ...extra,
    });
  } finally {
    clearInterval(watch);
  }
  return { host: host as HostPorts | null, threadsSeen };
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

describe('port scans split over threads, on 127.0.0.0/8', () => {
  it('finds the same open, closed and filtered ports on threads as on one thread', async () => {
    const address = '127.89.1.2';
    const open = await listeners(address, 3);
    const silent = await silentPorts([address], 2);
    cleanups.push(silent.close);
    const closed = await closedPort(address);
    // Ports below 1024 on this address refuse: enough of them to pass the closed-list limit.
    const ports = [
      ...new PortRange(200, 200 + 2 * CLOSED_LIST_LIMIT).toArray(),
      closed,
      ...open.map((l) => l.port),
      ...silent.ports,
    ];

    const one = await scanOne(address, ports, { threads: 0, retries: 1 });
    const split = await scanOne(address, ports, { threads: 2, retries: 1 });

    expect(one.threadsSeen).toBe(0);
    expect(split.threadsSeen).toBe(2);
    const expected = {
      address,
      open: open.map((l) => l.port).sort((a, b) => a - b),
      closed: 2 * CLOSED_LIST_LIMIT + 2,
      closedPorts: null,
      filtered: 2,
      unscanned: [],
      budgetExhausted: null,
    };
    expect(one.host).toEqual(expected);
    expect(split.host).toEqual(expected);
    for (const l of open) expect(l.accepted).toHaveLength(2);
    // Every thread is gone once the scan has returned.
    expect(liveThreads()).toBe(0);
  });

  it('lists the closed ports of a short list in order, as on one thread', async () => {
    const address = '127.89.2.2';
    const ports = [305, 301, 303, 302, 304];
    const split = await scanOne(address, ports, { threads: 3 });
    expect(split.threadsSeen).toBe(3);
    expect(split.host).toMatchObject({ open: [], closed: 5, closedPorts: [301, 302, 303, 304, 305] });
  });

  it('keeps the per-host in-flight limit over all threads (SYN_SENT counted by the kernel)', async () => {
    const address = '127.89.3.2';
    const silent = await silentPorts([address], 12);
    cleanups.push(silent.close);
    let most = 0;
    let threadsSeen = 0;
    const watch = setInterval(() => {
      // Two readings, the lower kept: /proc/net/tcp is not read in one instant, and two threads
      // closing a connect and starting the next while it is read can show both. A real excess
      // lasts a whole timeout and shows in both readings.
      const once = () => synSentTo([address]).get(address) ?? 0;
      most = Math.max(most, Math.min(once(), once()));
      threadsSeen = Math.max(threadsSeen, liveThreads());
    }, 5);
    cleanups.push(() => clearInterval(watch));
    let host: HostPorts | null = null;
    await scanPorts(
      [address],
      silent.ports,
      options({
        threads: 2,
        timeoutMs: 300,
        perHostInFlight: 3,
        onHost: (h) => {
          host = h;
        },
      }),
    );
    clearInterval(watch);
    expect(host).toMatchObject({ filtered: 12, unscanned: [] });
    expect(threadsSeen).toBe(2);
    // Unlimited, all 12 would be in flight at once; a slow machine only lowers the count seen.
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(3);
  });

  it('keeps the connection rate over all threads', async () => {
    const address = '127.89.4.2';
    const open = await listeners(address, 12);
    const rate = 5;
    const split = await scanOne(
      address,
      open.map((l) => l.port),
      { threads: 2, connectionsPerSecond: rate },
    );
    expect(split.threadsSeen).toBe(2);
    expect(split.host?.open).toHaveLength(12);
    const times = open.flatMap((l) => l.accepted).sort((a, b) => (a < b ? -1 : 1));
    expect(times).toHaveLength(12);
    // In any one-second window at most rate + burst (1 at 5/s) connects, plus one for timer
    // rounding; two threads each at the full rate would start twice as many.
    const oneSecond = 1_000_000_000n;
    for (const start of times) {
      const inWindow = times.filter((t) => t >= start && t < start + oneSecond).length;
      expect(inWindow).toBeLessThanOrEqual(rate + 1 + 1);
    }
  });

  it('stops a host on threads when its budget is spent, and reports the rest unscanned', async () => {
    const address = '127.89.5.2';
    const silent = await silentPorts([address], 6);
    cleanups.push(silent.close);
    const [open] = await listeners(address, 1);
    const ports = [open!.port, ...silent.ports];
    // One connect in flight per thread and a budget far shorter than one connect's timeout.
    const split = await scanOne(address, ports, {
      threads: 2,
      timeoutMs: 60_000,
      perHostInFlight: 2,
      hostBudgetMs: 1500,
    });
    expect(split.threadsSeen).toBe(2);
    expect(split.host).toMatchObject({ open: [open!.port], filtered: 0, budgetExhausted: 'host' });
    expect(split.host?.unscanned).toEqual([...silent.ports].sort((a, b) => a - b));
  });

  it('ends its threads when the scan is stopped, and rejects with the reason', async () => {
    const address = '127.89.6.2';
    const silent = await silentPorts([address], 8);
    cleanups.push(silent.close);
    const controller = new AbortController();
    const running = scanPorts(
      [address],
      silent.ports,
      options({ signal: controller.signal, threads: 2, timeoutMs: 60_000, onHost: () => undefined }),
    );
    // Stopped while the threads wait on silent ports (each connect would wait a minute).
    await expect.poll(() => synSentTo([address]).get(address) ?? 0).toBe(8);
    expect(liveThreads()).toBe(2);
    controller.abort(new Error('stopped by the user'));
    await expect(running).rejects.toThrow('stopped by the user');
    expect(liveThreads()).toBe(0);
    await expect.poll(() => synSentTo([address]).get(address) ?? 0).toBe(0);
  });

  it.each([['handle'], ['socket']] as const)(
    'answers the same through either way of connecting (%s)',
    async (connector) => {
      const address = '127.89.8.2';
      const open = await listeners(address, 2);
      const silent = await silentPorts([address], 1);
      cleanups.push(silent.close);
      const threads = new PortThreads(2, new TokenBucket(10_000), new AbortController().signal, connector);
      cleanups.push(() => threads.close());
      const ports = [...open.map((l) => l.port), ...silent.ports, 401, 402, 403];
      const found = await threads.pass({
        address,
        ports,
        lanes: 4,
        timeoutMs: 500,
        hostLeftMs: Number.POSITIVE_INFINITY,
        runLeftMs: Number.POSITIVE_INFINITY,
        closedListLimit: 2,
      });
      const sorted = (list: number[]) => [...list].sort((a, b) => a - b);
      expect({ ...found, open: sorted(found.open), closedPorts: sorted(found.closedPorts) }).toEqual({
        open: sorted(open.map((l) => l.port)),
        closed: 3,
        // Each thread lists up to the limit; the scanner keeps the list only when all closed fit.
        closedPorts: expect.any(Array),
        silent: silent.ports,
        notAsked: [],
        budgetExhausted: null,
      });
      expect(found.closedPorts.length).toBeGreaterThanOrEqual(2);
      for (const l of open) expect(l.accepted).toHaveLength(1);
    },
  );

  it.each([[-1], [1.5], [65]])('refuses threads: %j', async (threads) => {
    await expect(
      scanPorts(['127.89.7.2'], [80], options({ threads, onHost: () => undefined })),
    ).rejects.toThrow(/port scan: threads/);
  });
});
