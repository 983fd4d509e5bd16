import { afterEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_DISCOVERY_TEMPLATE,
  type DiscoveryOptions,
  discover,
  discoverHosts,
  discoverWithNmap,
} from '../../../src/scanning/discovery/index.js';
import type { NeighbourTable } from '../../../src/scanning/runtime/neighbours.js';
import type {
  DiscoveredHost,
  DiscoveryTemplate,
  ScanProgress,
  TargetRefusal,
} from '../../../src/scanning/types.js';
import { commandExists } from '../../lab/lab.js';
import {
  closedPort,
  countingListener,
  isRoot,
  type SilentPorts,
  silentPorts,
  synSentTo,
} from './loopback.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function template(overrides: Partial<DiscoveryTemplate>): DiscoveryTemplate {
  return { ...DEFAULT_DISCOVERY_TEMPLATE, reverseDns: false, timeoutMs: 1000, retries: 0, ...overrides };
}

interface Run {
  hosts: DiscoveredHost[];
  refused: Array<[string, TargetRefusal]>;
  progress: ScanProgress[];
  options: DiscoveryOptions;
}

function collector(extra: Partial<DiscoveryOptions> = {}): Run {
  const run: Run = {
    hosts: [],
    refused: [],
    progress: [],
    options: {
      signal: new AbortController().signal,
      check: () => null,
      onHost: (h) => {
        run.hosts.push(h);
      },
      onProgress: (p) => run.progress.push(p),
      onRefused: (a, r) => run.refused.push([a, r]),
      neighbours: async () => new Map(),
      ...extra,
    },
  };
  return run;
}

const byAddress = (a: DiscoveredHost, b: DiscoveredHost) => a.address.localeCompare(b.address);

describe('discovery on 127.0.0.0/8', () => {
  it('reports every host that answers, with its open and closed probe ports', async () => {
    const open = await countingListener('127.77.1.2');
    cleanups.push(open.close);
    const closed = await closedPort('127.77.1.2');
    const run = collector({ reverse: async (a) => (a === '127.77.1.2' ? ['web.lab.test'] : []) });

    const counts = await discoverHosts(
      ['127.77.1.2', '127.77.1.3'],
      2,
      template({ ports: [open.port, closed], reverseDns: true }),
      run.options,
    );

    expect(counts).toEqual({ done: 2, found: 2, refused: 0 });
    expect(run.hosts.sort(byAddress)).toEqual([
      {
        address: '127.77.1.2',
        hostname: 'web.lab.test',
        openPorts: [open.port],
        closedPorts: [closed],
        macAddress: null,
        osGuess: null,
      },
      // Loopback answers a refusal on every port nothing listens on: up, nothing open.
      {
        address: '127.77.1.3',
        hostname: null,
        openPorts: [],
        closedPorts: [open.port, closed].sort((a, b) => a - b),
        macAddress: null,
        osGuess: null,
      },
    ]);
    expect(open.accepted).toHaveLength(1);
    expect(run.progress.at(-1)).toEqual({ done: 2, total: 2, found: 2 });
  });

  it('never connects to an address the check refuses, and reports the refusal', async () => {
    const allowed = await countingListener('127.77.2.2');
    const forbidden = await countingListener('127.77.2.3', allowed.port);
    cleanups.push(allowed.close, forbidden.close);
    const refusal: TargetRefusal = {
      rule: 'NotAllowed',
      message: '127.77.2.3 is outside the allowed ranges',
    };
    const checked: string[] = [];
    const run = collector({
      check: (a) => {
        checked.push(a);
        return a === '127.77.2.3' ? refusal : null;
      },
    });

    const counts = await discoverHosts(
      ['127.77.2.2', '127.77.2.3', 'not-an-address'],
      3,
      template({ ports: [allowed.port], retries: 2 }),
      run.options,
    );

    expect(counts).toEqual({ done: 3, found: 1, refused: 2 });
    expect(forbidden.accepted).toHaveLength(0);
    expect(allowed.accepted).toHaveLength(1);
    expect(run.hosts.map((h) => h.address)).toEqual(['127.77.2.2']);
    expect(run.refused).toEqual([
      ['127.77.2.3', refusal],
      ['not-an-address', { rule: 'Syntax', message: 'not-an-address is not an IP address' }],
    ]);
    expect(checked).toEqual(['127.77.2.2', '127.77.2.3']);
  });

  it('starts no more connections per second than the template allows (counted by the listener)', async () => {
    const hosts = ['127.77.3.2', '127.77.3.3', '127.77.3.4'];
    const listeners = [];
    for (let p = 0; p < 5; p++) {
      const first = await countingListener(hosts[0]!);
      listeners.push(
        first,
        ...(await Promise.all(hosts.slice(1).map((h) => countingListener(h, first.port)))),
      );
    }
    cleanups.push(...listeners.map((l) => l.close));
    const ports = [...new Set(listeners.map((l) => l.port))];
    const rate = 5;

    await discoverHosts(
      hosts,
      hosts.length,
      template({ ports, connectionsPerSecond: rate, maxInFlight: 50, perHostInFlight: 5 }),
      collector().options,
    );

    const times = listeners.flatMap((l) => l.accepted).sort((a, b) => (a < b ? -1 : 1));
    expect(times).toHaveLength(15);
    // In any one-second window at most rate + burst (1 at 5/s) connects, plus one for timer
    // rounding; unlimited, all 15 would start at once. A slow machine only spreads them further.
    const oneSecond = 1_000_000_000n;
    for (const start of times) {
      const inWindow = times.filter((t) => t >= start && t < start + oneSecond).length;
      expect(inWindow).toBeLessThanOrEqual(rate + 1 + 1);
    }
  });

  describe('with silent ports (a full listen queue drops SYNs)', () => {
    let silent: SilentPorts;
    const hosts = ['127.77.4.2', '127.77.4.3', '127.77.4.4'];

    it('keeps the global and per-host in-flight limits (SYN_SENT counted by the kernel)', async () => {
      silent = await silentPorts(hosts, 4);
      cleanups.push(() => silent.close());
      let maxTotal = 0;
      let maxPerHost = 0;
      const sample = setInterval(() => {
        const counts = synSentTo(hosts);
        maxTotal = Math.max(
          maxTotal,
          [...counts.values()].reduce((a, b) => a + b, 0),
        );
        maxPerHost = Math.max(maxPerHost, ...counts.values());
      }, 10);
      cleanups.push(() => clearInterval(sample));
      const run = collector();

      const counts = await discoverHosts(
        hosts,
        hosts.length,
        template({ ports: silent.ports, timeoutMs: 600, maxInFlight: 5, perHostInFlight: 2 }),
        run.options,
      );

      expect(counts).toEqual({ done: 3, found: 0, refused: 0 });
      expect(run.hosts).toEqual([]);
      expect(maxTotal).toBeGreaterThan(0);
      expect(maxTotal).toBeLessThanOrEqual(5);
      expect(maxPerHost).toBeLessThanOrEqual(2);
    });

    it('counts a silent host up when the neighbour table confirms it, with its MAC', async () => {
      silent = await silentPorts(hosts, 1);
      cleanups.push(() => silent.close());
      const table: NeighbourTable = new Map([
        ['127.77.4.2', { mac: '02:00:00:00:00:02', state: 'reachable' }],
        ['127.77.4.3', { mac: '02:00:00:00:00:03', state: 'stale' }],
        ['127.77.4.4', { mac: null, state: 'failed' }],
      ]);
      const run = collector({ neighbours: async () => table });

      await discoverHosts(hosts, 3, template({ ports: silent.ports, timeoutMs: 300 }), run.options);

      expect(run.hosts).toEqual([
        {
          address: '127.77.4.2',
          hostname: null,
          openPorts: [],
          closedPorts: [],
          macAddress: '02:00:00:00:00:02',
          osGuess: null,
        },
      ]);
    });

    it('skips the other ports of an address on the segment that did not answer ARP', async () => {
      silent = await silentPorts(['127.77.4.7', '127.77.4.8'], 1);
      cleanups.push(() => silent.close());
      const first = await countingListener('127.77.4.7');
      const second = await countingListener('127.77.4.8', first.port);
      cleanups.push(first.close, second.close);
      // .7 is (as the table says) on the node's segment and never answered ARP; .8 is not on it.
      const table: NeighbourTable = new Map([['127.77.4.7', { mac: null, state: 'failed' }]]);
      const run = collector({ neighbours: async () => table });

      const counts = await discoverHosts(
        ['127.77.4.7', '127.77.4.8'],
        2,
        template({ ports: [silent.ports[0]!, first.port], timeoutMs: 300 }),
        run.options,
      );

      expect(counts).toEqual({ done: 2, found: 1, refused: 0 });
      expect(first.accepted).toHaveLength(0);
      expect(second.accepted).toHaveLength(1);
      expect(run.hosts).toMatchObject([{ address: '127.77.4.8', openPorts: [first.port] }]);
    });

    it('reports a silent port beside an open one neither open nor closed', async () => {
      silent = await silentPorts(['127.77.4.5'], 1);
      cleanups.push(() => silent.close());
      const open = await countingListener('127.77.4.5');
      cleanups.push(open.close);
      const run = collector();
      await discoverHosts(
        ['127.77.4.5'],
        1,
        template({ ports: [open.port, silent.ports[0]!], retries: 3, timeoutMs: 300 }),
        run.options,
      );
      expect(open.accepted).toHaveLength(1);
      expect(run.hosts).toMatchObject([{ address: '127.77.4.5', openPorts: [open.port], closedPorts: [] }]);
    });
  });

  it('stops at an abort: no more connects, fails with the abort, pulled only what it worked on', async () => {
    const listener = await countingListener('127.77.5.1');
    cleanups.push(listener.close);
    const controller = new AbortController();
    let pulled = 0;
    function* addresses() {
      for (let i = 0; i < 65536; i++) {
        pulled++;
        yield `127.77.${6 + (i >> 8)}.${i & 255}`;
      }
    }
    const run = collector({
      signal: controller.signal,
      onProgress: (p) => {
        if (p.done === 20) controller.abort();
      },
    });
    const t = template({
      ports: [listener.port],
      maxInFlight: 4,
      perHostInFlight: 1,
      connectionsPerSecond: 1000,
    });

    await expect(discoverHosts(addresses(), 65536, t, run.options)).rejects.toMatchObject({
      name: 'AbortError',
    });

    const workers = 4 * 2 + 8;
    expect(pulled).toBeLessThanOrEqual(20 + workers + 1);
    expect(run.hosts.length).toBeLessThanOrEqual(20 + workers);
  });

  it.runIf(isRoot)('[root] guesses Linux from a Debian SSH banner on port 22', async () => {
    const ssh = await countingListener('127.77.9.2', 22, 'SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3\r\n');
    cleanups.push(ssh.close);
    const run = collector();
    await discoverHosts(['127.77.9.2'], 1, template({ ports: [22] }), run.options);
    expect(run.hosts).toMatchObject([{ address: '127.77.9.2', openPorts: [22], osGuess: 'Linux' }]);
  });

  it('probes IPv6 addresses (::1)', async () => {
    const open = await countingListener('::1');
    cleanups.push(open.close);
    const run = collector();
    const counts = await discoverHosts(['::1'], 1, template({ ports: [open.port] }), run.options);
    expect(counts).toEqual({ done: 1, found: 1, refused: 0 });
    expect(run.hosts).toMatchObject([{ address: '::1', openPorts: [open.port], closedPorts: [] }]);
    expect(open.accepted).toHaveLength(1);
  });

  it('discover() uses the connect engine unless the template asks for nmap', async () => {
    const open = await countingListener('127.77.11.2');
    cleanups.push(open.close);
    const run = collector();
    const result = await discover(
      ['127.77.11.2'],
      1,
      template({ ports: [open.port], useNmap: false }),
      run.options,
    );
    expect(result).toEqual({ done: 1, found: 1, refused: 0, engine: 'connect' });
  });

  it.runIf(commandExists('nmap'))(
    'with nmap: hands it only allowed addresses, then learns the ports itself',
    async () => {
      const allowed = await countingListener('127.77.14.2');
      const forbidden = await countingListener('127.77.14.3', allowed.port);
      cleanups.push(allowed.close, forbidden.close);
      const run = collector({
        check: (a) => (a === '127.77.14.3' ? { rule: 'Excluded', message: '127.77.14.3 is excluded' } : null),
      });
      const counts = await discoverWithNmap(
        ['127.77.14.2', '127.77.14.3'],
        2,
        template({ ports: [allowed.port], useNmap: true }),
        run.options,
      );
      expect(counts).toEqual({ done: 2, found: 1, refused: 1 });
      expect(run.hosts).toMatchObject([{ address: '127.77.14.2', openPorts: [allowed.port] }]);
      expect(forbidden.accepted).toHaveLength(0);
      expect(run.refused.map(([a]) => a)).toEqual(['127.77.14.3']);
    },
  );

  it('refuses a bad template naming the field', async () => {
    const run = collector();
    await expect(discoverHosts([], 0, template({ ports: [] }), run.options)).rejects.toThrow(
      /ports must list/,
    );
    await expect(discoverHosts([], 0, template({ ports: [0] }), run.options)).rejects.toThrow(
      /ports must be/,
    );
    await expect(discoverHosts([], 0, template({ ports: [80, 80] }), run.options)).rejects.toThrow(/repeat/);
    await expect(discoverHosts([], 0, template({ timeoutMs: 0 }), run.options)).rejects.toThrow(/timeoutMs/);
    await expect(discoverHosts([], 0, template({ retries: -1 }), run.options)).rejects.toThrow(/retries/);
    await expect(discoverHosts([], 0, template({ maxInFlight: 0 }), run.options)).rejects.toThrow(
      /maxInFlight/,
    );
    await expect(discoverHosts([], 0, template({ connectionsPerSecond: 0 }), run.options)).rejects.toThrow(
      /connectionsPerSecond/,
    );
    await expect(discoverHosts([], 0, template({ perHostInFlight: 0.5 }), run.options)).rejects.toThrow(
      /perHostInFlight/,
    );
  });

  it('fails the run when onHost throws, and stops probing', async () => {
    const listener = await countingListener('127.77.10.2');
    cleanups.push(listener.close);
    const run = collector({
      onHost: () => {
        throw new Error('the server is gone');
      },
    });
    const addresses = Array.from({ length: 50 }, (_, i) => `127.77.10.${i + 2}`);
    await expect(
      discoverHosts(
        addresses,
        50,
        template({ ports: [listener.port], maxInFlight: 1, perHostInFlight: 1 }),
        run.options,
      ),
    ).rejects.toThrow('the server is gone');
  });
});
