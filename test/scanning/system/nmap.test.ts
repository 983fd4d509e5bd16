import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import {
  mergeNmap,
  nmapVersionArguments,
  readNmapServices,
  systemScan,
} from '../../../src/scanning/system/index.js';
import type { ScannedService, SystemHostResult } from '../../../src/scanning/types.js';
import { type Running, tcpServer } from './servers.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const hasNmap = (() => {
  try {
    execFileSync('nmap', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const XML = `<?xml version="1.0"?><nmaprun scanner="nmap" args="nmap -sV"><host><status state="up"/>
<address addr="127.0.0.1" addrtype="ipv4"/><ports>
<port protocol="tcp" portid="22"><state state="open"/><service name="ssh" product="OpenSSH" version="9.2p1 Debian 2+deb12u3" extrainfo="protocol 2.0"><cpe>cpe:/a:openbsd:openssh:9.2p1</cpe><cpe>cpe:/o:linux:linux_kernel</cpe></service></port>
<port protocol="tcp" portid="5672"><state state="open"/><service name="amqp" product="RabbitMQ" version="3.10.8"/></port>
<port protocol="tcp" portid="9"><state state="open"/><service name="discard"/></port>
<port protocol="tcp" portid="10"><state state="closed"/><service name="x" product="Closed"/></port>
</ports></host></nmaprun>`;

const ours = (extra: Partial<ScannedService> = {}): ScannedService => ({
  port: 22,
  protocol: 'tcp',
  service: 'ssh',
  product: null,
  version: null,
  cpes: [],
  confidence: 0.5,
  banner: 'SSH-2.0-x',
  evidence: 'SSH-2.0-x',
  tls: false,
  detectedBy: 'rampart',
  ...extra,
});

describe('nmap -sV results', () => {
  it('reads the open ports nmap named a product for, with CPE 2.3 names and the vendor aliases', async () => {
    const services = await readNmapServices(XML);
    expect(services).toEqual([
      {
        port: 22,
        name: 'ssh',
        product: 'OpenSSH',
        version: '9.2p1 Debian 2+deb12u3',
        cpes: [
          'cpe:2.3:a:openbsd:openssh:9.2p1:*:*:*:*:*:*:*',
          'cpe:2.3:a:openbsd:openssh:9.2:p1:*:*:*:*:*:*',
        ],
      },
      { port: 5672, name: 'amqp', product: 'RabbitMQ', version: '3.10.8', cpes: [] },
    ]);
  });

  it("takes nmap's where Rampart knew only the protocol, keeps Rampart's where both named a product", async () => {
    const [ssh] = await readNmapServices(XML);
    expect(mergeNmap(22, ours(), ssh!)).toMatchObject({
      product: 'OpenSSH',
      service: 'ssh',
      detectedBy: 'nmap',
      banner: 'SSH-2.0-x',
      evidence: 'nmap -sV: OpenSSH 9.2p1 Debian 2+deb12u3',
    });
    expect(mergeNmap(22, null, ssh!)).toMatchObject({ service: 'ssh', detectedBy: 'nmap' });
    const both = mergeNmap(
      22,
      ours({ product: 'OpenSSH', version: '9.2p1', evidence: 'SSH-2.0-OpenSSH_9.2p1' }),
      ssh!,
    );
    expect(both).toMatchObject({ detectedBy: 'rampart', version: '9.2p1' });
    expect(both.evidence).toBe('SSH-2.0-OpenSSH_9.2p1 (nmap -sV: OpenSSH 9.2p1 Debian 2+deb12u3)');
  });

  it('arguments: version detection, no ping, no DNS, XML on stdout, only the given ports and address', () => {
    expect(nmapVersionArguments('127.0.0.1', [22, 80], 30_000)).toEqual([
      '-sV',
      '-Pn',
      '-n',
      '--host-timeout',
      '30000ms',
      '-oX',
      '-',
      '-p',
      '22,80',
      '127.0.0.1',
    ]);
    expect(nmapVersionArguments('::1', [22], 10)).toContain('-6');
  });

  it.skipIf(!hasNmap)(
    'a scan with nmap names what Rampart could not (a Microsoft FTP banner)',
    async () => {
      const ftp: Running = await tcpServer('127.0.0.1', (s) => {
        s.write('220 Microsoft FTP Service\r\n');
        s.on('data', () => s.write('500 Command not understood.\r\n'));
      });
      cleanups.push(ftp.close);
      const hosts: SystemHostResult[] = [];
      const logs: string[] = [];
      await systemScan(
        ['127.0.0.1'],
        {
          ports: String(ftp.port),
          timeoutMs: 1000,
          retries: 0,
          maxInFlight: 4,
          connectionsPerSecond: 100,
          perHostInFlight: 2,
          portBudgetMs: 20_000,
          hostBudgetMs: 120_000,
          runBudgetMs: 120_000,
          serviceDetection: true,
          tlsChecks: false,
          safeChecks: true,
          useNmapVersionDetection: true,
        },
        {
          signal: new AbortController().signal,
          check: () => null,
          now: () => new Date('2031-01-01T00:00:00Z'),
          nmapPath: 'nmap',
          onHost: (h) => {
            hosts.push(h);
          },
          log: (m) => logs.push(m),
        },
      );
      expect(logs).toEqual([]);
      expect(hosts[0]!.services[0]).toMatchObject({ port: ftp.port, detectedBy: 'nmap', service: 'ftp' });
      expect(hosts[0]!.services[0]!.product).toMatch(/Microsoft/);
      expect(hosts[0]!.checks.map((c) => c.checkId)).toContain('cleartext.ftp');
    },
    120_000,
  );
});
