// A dead address must not read as a live host with no open port. In a lab of
// network namespaces (test/lab): a host with sshd, a host that drops every TCP packet (it answers
// only ARP, as behind a strict firewall), a quiet host (every port refuses) and an address with
// no host at all. Traffic goes only to the lab's /24, which the test first proves is routed only
// into the lab.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_DISCOVERY_SETTINGS } from '../../../src/modules/scantemplates/built-in.js';
import { discoveryExecutor } from '../../../src/scanning/node/discovery-executor.js';
import { systemExecutor } from '../../../src/scanning/node/system-executor.js';
import type {
  DiscoveredHost,
  RunContext,
  SystemHostResult,
  SystemTemplate,
} from '../../../src/scanning/types.js';
import { createLab, type Lab, labAvailable } from '../../lab/lab.js';

const TEMPLATE: SystemTemplate = {
  ports: '22,80,443,8080',
  timeoutMs: 2000,
  retries: 0,
  maxInFlight: 64,
  connectionsPerSecond: 500,
  perHostInFlight: 8,
  portBudgetMs: 10_000,
  hostBudgetMs: 60_000,
  runBudgetMs: 120_000,
  serviceDetection: false,
  tlsChecks: false,
  safeChecks: false,
  useNmapVersionDetection: false,
};

function context(emitted: unknown[]): RunContext {
  return {
    signal: AbortSignal.timeout(180_000),
    emit: async (items) => {
      emitted.push(...items);
    },
    progress: () => {},
    log: () => {},
  };
}

describe.runIf(labAvailable())('[lab] hosts that do not answer', () => {
  let lab: Lab;
  const address = (name: string) => lab.hosts.get(name)!.address;
  const policy = () => ({ allowed: [lab.subnet], excluded: [], allowLoopback: false });

  beforeAll(async () => {
    lab = await createLab([
      { name: 'ssh', index: 10, daemons: ['sshd'] },
      { name: 'wall', index: 11, dropAllTcp: true },
      { name: 'quiet', index: 12 },
      { name: 'down', index: 13, state: 'down' },
    ]);
  });
  afterAll(() => lab?.teardown());

  it('a system scan reports the dead address as not answering, the firewalled and quiet hosts as answering', async () => {
    lab.assertRoutedIntoLab();
    const emitted: unknown[] = [];
    const targets = ['ssh', 'wall', 'quiet', 'down'].map((name) => ({ range: address(name) }));
    await systemExecutor()(
      { targets, exclusions: [], policy: policy(), template: TEMPLATE },
      context(emitted),
    );
    const hosts = new Map((emitted as SystemHostResult[]).map((h) => [h.address, h]));
    const seen = (name: string) => {
      const host = hosts.get(address(name));
      return (
        host && { answered: host.answered, open: host.openPorts, closed: host.closedPorts?.length ?? null }
      );
    };
    expect(seen('ssh')).toEqual({ answered: true, open: [22], closed: 3 });
    // Every port dropped, but it answered ARP: it is there.
    expect(seen('wall')).toEqual({ answered: true, open: [], closed: 0 });
    expect(seen('quiet')).toEqual({ answered: true, open: [], closed: 4 });
    // Nothing answered, not even ARP: reported, but as a host that did not answer.
    expect(seen('down')).toEqual({ answered: false, open: [], closed: 0 });
  }, 200_000);

  it('discovery finds the firewalled and quiet hosts, never the dead address', async () => {
    lab.assertRoutedIntoLab();
    const emitted: unknown[] = [];
    await discoveryExecutor()(
      {
        targets: ['ssh', 'wall', 'quiet', 'down'].map((name) => ({ range: address(name) })),
        exclusions: [],
        policy: policy(),
        template: { ...DEFAULT_DISCOVERY_SETTINGS, ports: [22, 80, 443], timeoutMs: 2000, reverseDns: false },
      },
      context(emitted),
    );
    expect((emitted as DiscoveredHost[]).map((h) => h.address).sort()).toEqual(
      [address('ssh'), address('wall'), address('quiet')].sort(),
    );
  }, 200_000);
});
