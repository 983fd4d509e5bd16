// The system engine against real Debian daemons in a lab of network namespaces (test/lab), held to
// nmap -sV run on the same ports in the same test. Traffic goes only to the lab's /24, which the
// test first proves is routed only into the lab.
//
// How products are compared (test/lab/nmap.ts): lower case, and nmap's longer name counts when it
// starts with Rampart's and a space (`Redis key-value store` is `Redis`); the version must equal
// nmap's first word (`9.2p1` of `9.2p1 Debian 2+deb12u10`: the rest is Debian's build).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nmapAvailable } from '../../../src/scanning/discovery/index.js';
import { WELL_KNOWN_PORTS } from '../../../src/scanning/ports/index.js';
import { systemScan } from '../../../src/scanning/system/index.js';
import type { SystemHostResult, SystemTemplate } from '../../../src/scanning/types.js';
import { createLab, DAEMON_PORTS, type Lab, labAvailable } from '../../lab/lab.js';
import { compareWithNmap, type NmapService, nmapVersionScan } from '../../lab/nmap.js';

// Far from today: the certificate's expiry is judged on this clock, the lab makes it on the same.
const NOW = new Date('2031-05-04T12:00:00Z');

/** The top1000 list plus every port a lab daemon listens on. */
const PORTS = [...new Set([...WELL_KNOWN_PORTS, ...Object.values(DAEMON_PORTS).flat()])].sort(
  (a, b) => a - b,
);

const TEMPLATE: SystemTemplate = {
  ports: PORTS.join(','),
  // Generous for a loaded two-core CI machine; the lab answers in well under a millisecond.
  timeoutMs: 2000,
  retries: 1,
  maxInFlight: 256,
  connectionsPerSecond: 2000,
  perHostInFlight: 32,
  portBudgetMs: 30_000,
  hostBudgetMs: 120_000,
  runBudgetMs: 240_000,
  serviceDetection: true,
  tlsChecks: true,
  safeChecks: true,
  useNmapVersionDetection: false,
};

const nmapHere = await nmapAvailable();

describe.runIf(labAvailable() && nmapHere)('[lab] system scans of real daemons, against nmap -sV', () => {
  let lab: Lab;
  const hosts: SystemHostResult[] = [];
  let nmap: NmapService[] = [];

  beforeAll(async () => {
    lab = await createLab(
      [
        { name: 'ssh', index: 10, daemons: ['sshd'] },
        { name: 'legacy', index: 20, daemons: ['nginx-legacy-tls'], hostname: 'legacy.lab.test' },
        { name: 'soft', index: 21, daemons: ['nginx-soft404'] },
        { name: 'redis', index: 22, daemons: ['redis'] },
      ],
      { clock: () => NOW },
    );
    lab.assertRoutedIntoLab();
    const addresses = [...lab.hosts.values()].map((h) => h.address);
    const inLab = new Set(addresses);
    const result = await systemScan(addresses, TEMPLATE, {
      signal: AbortSignal.timeout(TEMPLATE.runBudgetMs + 30_000),
      check: (a) => (inLab.has(a) ? null : { rule: 'NotAllowed', message: `${a} is not a lab host` }),
      now: () => NOW,
      hostnames: new Map([[lab.hosts.get('legacy')!.address, 'legacy.lab.test']]),
      onHost: (h) => {
        hosts.push(h);
      },
    });
    expect(result).toEqual({ scanned: 4, refused: 0, budgetExhausted: null });
    nmap = (await nmapVersionScan(addresses, PORTS, 180_000)).services;
  }, 480_000);

  afterAll(() => lab?.teardown());

  const host = (name: string) => {
    const found = hosts.find((h) => h.address === lab.hosts.get(name)!.address);
    if (!found) throw new Error(`no result for ${name}`);
    return found;
  };
  const ids = (h: SystemHostResult) => h.checks.map((c) => `${c.checkId}@${c.port}`);

  it('finds the same open ports as nmap, and nothing cut short by a budget', () => {
    for (const h of hosts) {
      const theirs = nmap.filter((s) => s.address === h.address).map((s) => s.port);
      expect(h.openPorts, h.address).toEqual(theirs.sort((a, b) => a - b));
      expect(h.unscannedPorts).toEqual([]);
      expect(h.budgetExhausted).toBeNull();
    }
    expect(host('ssh').openPorts).toEqual([22]);
    expect(host('legacy').openPorts).toEqual([80, 443]);
    expect(host('soft').openPorts).toEqual([80]);
    expect(host('redis').openPorts).toEqual([6379]);
  });

  it('on every port where nmap names a product, Rampart names the same product and version', () => {
    const comparison = compareWithNmap(hosts, nmap);
    expect(comparison.differences).toEqual([]);
    // ssh 22, nginx on 80 and 443 of the legacy host and 80 of the soft one, Redis 6379.
    expect(comparison.identified).toBe(5);
    expect(comparison.same).toBe(5);
  });

  it('OpenSSH comes out with its real version and an NVD-style CPE', () => {
    const ssh = host('ssh').services.find((s) => s.port === 22)!;
    const theirs = nmap.find((s) => s.address === host('ssh').address && s.port === 22)!;
    expect(ssh).toMatchObject({ service: 'ssh', product: 'OpenSSH', tls: false, detectedBy: 'rampart' });
    expect(theirs.version!.split(' ')[0]).toBe(ssh.version);
    expect(ssh.version).toMatch(/^\d+\.\d+p\d+$/);
    const [release, patch] = ssh.version!.split('p');
    expect(ssh.cpes).toContainEqual(
      expect.stringMatching(
        new RegExp(`^cpe:2\\.3:a:openbsd:openssh:${release!.replace('.', '\\.')}:p${patch}:`),
      ),
    );
    expect(ssh.banner).toMatch(/^SSH-2\.0-OpenSSH_/);
  });

  it('the legacy TLS site: legacy versions, an expired and a self-signed certificate on 443', () => {
    const legacy = host('legacy');
    expect(legacy.services.find((s) => s.port === 443)).toMatchObject({ tls: true, product: 'nginx' });
    expect(legacy.services.find((s) => s.port === 80)).toMatchObject({ tls: false, product: 'nginx' });
    expect(ids(legacy)).toEqual(
      expect.arrayContaining([
        'tls.legacy-version@443',
        'tls.certificate-expired@443',
        'tls.certificate-self-signed@443',
      ]),
    );
    // Plain http on 80 is no TLS finding.
    expect(ids(legacy).filter((id) => id.startsWith('tls.') && id.endsWith('@80'))).toEqual([]);
  });

  it('Redis without a password: noauth.redis on 6379, and no such finding elsewhere', () => {
    expect(ids(host('redis'))).toContain('noauth.redis@6379');
    for (const name of ['ssh', 'legacy', 'soft'])
      expect(ids(host(name)).filter((id) => id.startsWith('noauth.'))).toEqual([]);
    expect(ids(host('soft')).filter((id) => id.startsWith('tls.'))).toEqual([]);
  });
});
