// A host's ports split over threads, on a lab host (test/lab): sshd on 22 and port 8080 dropped by
// nftables. The threads must find what one thread finds (open, closed, filtered), and a list of
// all 65,535 ports at the all-ports template's pace must go to threads by itself. Traffic goes
// only to the lab's /24, which the test first proves is routed only into the lab.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ALL_PORTS,
  type HostPorts,
  type PortList,
  PortRange,
  type PortScanOptions,
  scanPorts,
} from '../../../src/scanning/ports/index.js';
import { liveThreads } from '../../../src/scanning/ports/threads.js';
import { createLab, type Lab, labAvailable } from '../../lab/lab.js';

describe.runIf(labAvailable())('[lab] port scans split over threads', () => {
  let lab: Lab;
  let address: string;

  beforeAll(async () => {
    lab = await createLab([{ name: 'dropped', index: 31, daemons: ['sshd'], dropPorts: [8080] }]);
    address = lab.hosts.get('dropped')!.address;
  });
  afterAll(() => lab?.teardown());

  async function scan(ports: PortList, extra: Partial<PortScanOptions>) {
    let host: HostPorts | null = null;
    let threadsSeen = 0;
    const watch = setInterval(() => {
      threadsSeen = Math.max(threadsSeen, liveThreads());
    }, 5);
    try {
      await scanPorts([address], ports, {
        signal: AbortSignal.timeout(120_000),
        check: (a) => (a === address ? null : { rule: 'NotAllowed', message: `${a} is not the lab host` }),
        timeoutMs: 1000,
        retries: 1,
        maxInFlight: 2048,
        connectionsPerSecond: 20_000,
        perHostInFlight: 256,
        onHost: (h) => {
          host = h;
        },
        ...extra,
      });
    } finally {
      clearInterval(watch);
    }
    return { host: host as HostPorts | null, threadsSeen };
  }

  it('finds the same open, closed and filtered ports on two threads as on one', async () => {
    lab.assertRoutedIntoLab();
    const ports = new PortRange(1, 10_000);
    const one = await scan(ports, { threads: 0 });
    const two = await scan(ports, { threads: 2 });
    expect(one.threadsSeen).toBe(0);
    expect(two.threadsSeen).toBe(2);
    const expected = {
      address,
      open: [22],
      closed: 9998,
      closedPorts: null,
      filtered: 1,
      unscanned: [],
      budgetExhausted: null,
    };
    expect(one.host).toEqual(expected);
    expect(two.host).toEqual(expected);
  }, 120_000);

  it('splits all 65,535 ports over threads by itself at the all-ports pace', async () => {
    lab.assertRoutedIntoLab();
    const all = await scan(ALL_PORTS, { connectionsPerSecond: 50_000, perHostInFlight: 512 });
    expect(all.threadsSeen).toBeGreaterThanOrEqual(1);
    expect(all.host).toMatchObject({ open: [22], closed: 65_533, filtered: 1, unscanned: [] });
    expect(liveThreads()).toBe(0);
  }, 120_000);
});
