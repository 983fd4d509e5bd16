// Discovery against a lab of network namespaces the test builds (test/lab): real daemons, closed,
// filtered and silent hosts, hosts that are down, an address the policy refuses, a host that goes.
// Traffic goes only to the lab's /24, which the test first proves is routed only into the lab.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_DISCOVERY_TEMPLATE,
  type DiscoveryOptions,
  discover,
  discoverHosts,
  reverseResolver,
} from '../../../src/scanning/discovery/index.js';
import type { DiscoveredHost, DiscoveryTemplate, TargetRefusal } from '../../../src/scanning/types.js';
import { commandExists, createLab, type Lab, labAvailable } from '../../lab/lab.js';

const PORTS = [22, 80, 443, 8080];
const TEMPLATE: DiscoveryTemplate = {
  ...DEFAULT_DISCOVERY_TEMPLATE,
  ports: PORTS,
  // Generous for a loaded CI machine: sshd forks before it greets (the banner waits twice this).
  timeoutMs: 2000,
  retries: 1,
  reverseDns: true,
};

describe.runIf(labAvailable())('[lab] discovery in a lab of network namespaces', () => {
  let lab: Lab;
  let options: (hosts: DiscoveredHost[], refused: string[]) => DiscoveryOptions;
  const refusal: TargetRefusal = { rule: 'NotAllowed', message: 'outside the allowed ranges' };

  beforeAll(async () => {
    lab = await createLab([
      { name: 'ssh', index: 10, daemons: ['sshd'], hostname: 'ssh.lab.test' },
      { name: 'web', index: 11, daemons: ['nginx'], dropPorts: [443], hostname: 'web.lab.test' },
      { name: 'files', index: 12, daemons: ['http'] },
      { name: 'quiet', index: 13 },
      { name: 'wall', index: 14, dropAllTcp: true, hostname: 'wall.lab.test' },
      { name: 'down', index: 15, state: 'down' },
      { name: 'unplugged', index: 16, state: 'link-down' },
      { name: 'forbidden', index: 17, daemons: ['http'] },
      { name: 'leaving', index: 18, daemons: ['http'] },
    ]);
    const forbidden = lab.hosts.get('forbidden')!.address;
    const reverse = reverseResolver({ servers: [lab.dnsServer!], timeoutMs: 2000 });
    options = (hosts, refused) => ({
      signal: new AbortController().signal,
      check: (a) => (a === forbidden ? refusal : null),
      onHost: (h) => {
        hosts.push(h);
      },
      onRefused: (a) => refused.push(a),
      reverse,
    });
  });

  afterAll(() => lab?.teardown());

  const host = (name: string) => lab.hosts.get(name)!;
  const expected = (): DiscoveredHost[] => [
    {
      address: host('ssh').address,
      hostname: 'ssh.lab.test',
      openPorts: [22],
      closedPorts: [80, 443, 8080],
      macAddress: host('ssh').mac,
      osGuess: 'Linux',
    },
    {
      address: host('web').address,
      hostname: 'web.lab.test',
      openPorts: [80],
      closedPorts: [22, 8080],
      macAddress: host('web').mac,
      osGuess: null,
    },
    {
      address: host('files').address,
      hostname: null,
      openPorts: [8080],
      closedPorts: [22, 80, 443],
      macAddress: host('files').mac,
      osGuess: null,
    },
    {
      address: host('quiet').address,
      hostname: null,
      openPorts: [],
      closedPorts: [22, 80, 443, 8080],
      macAddress: host('quiet').mac,
      osGuess: null,
    },
    {
      address: host('wall').address,
      hostname: 'wall.lab.test',
      openPorts: [],
      closedPorts: [],
      macAddress: host('wall').mac,
      osGuess: null,
    },
  ];
  const lastByte = (h: DiscoveredHost) => Number(h.address.split('.')[3]);
  /** Lab hosts found, in address order, without the gateway (the node's own address on the bridge). */
  const labHosts = (hosts: DiscoveredHost[]) =>
    hosts.filter((h) => h.address !== lab.gateway).sort((a, b) => lastByte(a) - lastByte(b));

  it('routes the whole lab /24 into the lab bridge and nowhere else', () => {
    expect(() => lab.assertRoutedIntoLab()).not.toThrow();
  });

  it('finds exactly the live hosts, with their ports, MACs and names; never touches the refused one', async () => {
    lab.assertRoutedIntoLab();
    const hosts: DiscoveredHost[] = [];
    const refused: string[] = [];
    const counts = await discoverHosts(lab.addresses(), 254, TEMPLATE, options(hosts, refused));

    expect(labHosts(hosts)).toEqual([...expected(), leavingHost()]);
    expect(hosts.map((h) => h.address)).toContain(lab.gateway);
    expect(counts).toEqual({ done: 254, found: 7, refused: 1 });
    expect(refused).toEqual([host('forbidden').address]);
    expect(lab.packetsReceived('forbidden')).toEqual({ ip: 0, arp: 0 });
    expect(lab.packetsReceived('wall').ip).toBeGreaterThan(0);
  });

  it.runIf(commandExists('nmap'))(
    'finds the same hosts through nmap -sn when the template asks for it',
    async () => {
      lab.assertRoutedIntoLab();
      const hosts: DiscoveredHost[] = [];
      const refused: string[] = [];
      const result = await discover(
        lab.addresses(),
        254,
        { ...TEMPLATE, useNmap: true },
        options(hosts, refused),
      );

      expect(result).toMatchObject({ engine: 'nmap', done: 254, found: 7, refused: 1 });
      expect(labHosts(hosts)).toEqual([...expected(), leavingHost()]);
      expect(lab.packetsReceived('forbidden')).toEqual({ ip: 0, arp: 0 });
    },
  );

  it('does not find a host taken away since the last run', async () => {
    lab.removeHost('leaving');
    lab.assertRoutedIntoLab();
    const hosts: DiscoveredHost[] = [];
    await discoverHosts(lab.addresses(), 254, TEMPLATE, options(hosts, []));
    expect(labHosts(hosts)).toEqual(expected());
  });

  it('proves its own counter: the refused host counts a packet once one is sent', async () => {
    const { connect } = await import('node:net');
    await new Promise<void>((resolve) => {
      const s = connect({ host: host('forbidden').address, port: 8080 }, () => {
        s.destroy();
        resolve();
      });
      s.once('error', () => resolve());
    });
    const seen = lab.packetsReceived('forbidden');
    expect(seen.ip).toBeGreaterThan(0);
    expect(seen.arp).toBeGreaterThan(0);
  });

  function leavingHost(): DiscoveredHost {
    return {
      address: `${lab.subnet.split('.').slice(0, 3).join('.')}.18`,
      hostname: null,
      openPorts: [8080],
      closedPorts: [22, 80, 443],
      macAddress: lab.hosts.get('leaving')?.mac ?? null,
      osGuess: null,
    };
  }
});
