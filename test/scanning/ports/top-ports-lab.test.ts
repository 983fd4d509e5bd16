// The default system template must find what `nmap --top-ports 1000` finds.
// In a lab of network namespaces (test/lab), daemons listen on ports services often move to (ssh
// on 2222 and 8022, web servers on 7777, 9999, 8000, 8888, 9090, 3000, 5000, 10000) and on the
// usual ones; the default template (S1, `top1000`) and nmap's own top 1000 ports (run here, its
// data never copied) scan the same hosts, and Rampart must find every open port nmap finds.
// Traffic goes only to the lab's /24, which the test first proves is routed only into the lab.
// The figures it prints are recorded in test/lab/README.md.

import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SYSTEM_SETTINGS } from '../../../src/modules/scantemplates/built-in.js';
import { nmapAvailable } from '../../../src/scanning/discovery/index.js';
import { systemScan } from '../../../src/scanning/system/index.js';
import type { SystemHostResult } from '../../../src/scanning/types.js';
import { createLab, type Lab, labAvailable } from '../../lab/lab.js';
import { nmapTopPortsScan } from '../../lab/nmap.js';

const nmapHere = await nmapAvailable();

describe.runIf(labAvailable() && nmapHere)('[lab] the default template against nmap --top-ports 1000', () => {
  let lab: Lab;

  beforeAll(async () => {
    lab = await createLab([
      // Its only service is ssh on 2222: the default template used to find nothing here.
      { name: 'ssh2222', index: 10, listeners: [{ daemon: 'sshd', port: 2222 }] },
      {
        name: 'alternates',
        index: 11,
        listeners: [
          { daemon: 'http', port: 7777 },
          { daemon: 'http', port: 9999 },
          { daemon: 'sshd', port: 8022 },
        ],
      },
      {
        name: 'dev',
        index: 12,
        listeners: [3000, 5000, 8000, 8888, 9090, 10000].map((port) => ({ daemon: 'http' as const, port })),
      },
      { name: 'usual', index: 13, daemons: ['sshd', 'nginx', 'redis'] },
    ]);
  });
  afterAll(() => lab?.teardown());

  it('finds at least every open port nmap finds', async () => {
    lab.assertRoutedIntoLab();
    const addresses = [...lab.hosts.values()].map((h) => h.address);
    const inLab = new Set(addresses);

    const hosts: SystemHostResult[] = [];
    const started = performance.now();
    await systemScan(addresses, DEFAULT_SYSTEM_SETTINGS, {
      signal: AbortSignal.timeout(300_000),
      check: (a) => (inLab.has(a) ? null : { rule: 'NotAllowed', message: `${a} is not a lab host` }),
      now: () => new Date('2031-05-04T12:00:00Z'),
      onHost: (h) => {
        hosts.push(h);
      },
    });
    const rampartMs = performance.now() - started;
    // The same list with nothing examined: the port scan alone, as nmap -sT makes it.
    const portsOnly = performance.now();
    let openOnly = 0;
    await systemScan(
      addresses,
      { ...DEFAULT_SYSTEM_SETTINGS, serviceDetection: false, tlsChecks: false, safeChecks: false },
      {
        signal: AbortSignal.timeout(300_000),
        check: (a) => (inLab.has(a) ? null : { rule: 'NotAllowed', message: `${a} is not a lab host` }),
        now: () => new Date('2031-05-04T12:00:00Z'),
        onHost: (h) => {
          openOnly += h.openPorts.length;
        },
      },
    );
    const portsOnlyMs = performance.now() - portsOnly;
    const nmap = await nmapTopPortsScan(addresses, 1000, 240_000);

    const rampart = hosts.flatMap((h) => h.openPorts.map((port) => `${h.address}:${port}`)).sort();
    const nmapOpen = nmap.open.map((o) => `${o.address}:${o.port}`).sort();
    console.log(
      `[top ports] Rampart S1 (top1000): ${rampart.length} open ports in ${(rampartMs / 1000).toFixed(1)} s` +
        ` (with banners, TLS and safe checks), ${openOnly} in ${(portsOnlyMs / 1000).toFixed(1)} s (ports only);` +
        ` nmap -sT --top-ports 1000: ${nmapOpen.length} in` +
        ` ${(nmap.ms / 1000).toFixed(1)} s. Rampart only: ${rampart.filter((p) => !nmapOpen.includes(p)).join(', ') || 'none'};` +
        ` nmap only: ${nmapOpen.filter((p) => !rampart.includes(p)).join(', ') || 'none'}`,
    );
    // The ports of the issue, whatever nmap makes of them.
    const at = (name: string, port: number) => `${lab.hosts.get(name)!.address}:${port}`;
    for (const port of [at('ssh2222', 2222), at('alternates', 7777), at('alternates', 9999)])
      expect(rampart).toContain(port);
    expect(nmapOpen.length).toBeGreaterThan(0);
    expect(nmapOpen.filter((p) => !rampart.includes(p))).toEqual([]);
    expect(openOnly).toBe(rampart.length);
    // The ssh on 2222 is identified, not only seen open.
    const ssh = hosts.find((h) => h.address === lab.hosts.get('ssh2222')!.address)!;
    expect(ssh.services.map((s) => [s.port, s.service])).toEqual([[2222, 'ssh']]);
  }, 600_000);
});
