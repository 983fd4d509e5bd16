// The nmap -sV baseline's reading and comparison rules (no lab needed): how nmap's names and
// versions are held against Rampart's.

import { describe, expect, it } from 'vitest';
import type { ScannedService } from '../../src/scanning/types.js';
import { compareWithNmap, nmapVersionScan, readNmapServices, sameProduct, sameVersion } from './nmap.js';

// The shape of `nmap -sV -oX -` 7.93 on the lab (trimmed to two hosts).
const XML = `<?xml version="1.0" encoding="UTF-8"?>
<nmaprun scanner="nmap" args="nmap -sV -Pn -n -oX - -p 22,6379 198.18.5.10 198.18.5.22" version="7.93">
<host><status state="up" reason="user-set"/><address addr="198.18.5.10" addrtype="ipv4"/>
<ports><port protocol="tcp" portid="22"><state state="open" reason="syn-ack"/>
<service name="ssh" product="OpenSSH" version="9.2p1 Debian 2+deb12u10" extrainfo="protocol 2.0" ostype="Linux" method="probed" conf="10"><cpe>cpe:/a:openbsd:openssh:9.2p1</cpe><cpe>cpe:/o:linux:linux_kernel</cpe></service></port>
<port protocol="tcp" portid="6379"><state state="closed" reason="reset"/><service name="redis" method="table" conf="3"/></port>
</ports></host>
<host><status state="up" reason="user-set"/><address addr="198.18.5.22" addrtype="ipv4"/>
<ports><port protocol="tcp" portid="22"><state state="open" reason="syn-ack"/><service name="ssh" method="table" conf="3"/></port>
<port protocol="tcp" portid="6379"><state state="open" reason="syn-ack"/>
<service name="redis" product="Redis key-value store" version="7.0.15" method="probed" conf="10"><cpe>cpe:/a:redislabs:redis:7.0.15</cpe></service></port>
</ports></host>
</nmaprun>`;

const service = (port: number, product: string | null, version: string | null): ScannedService => ({
  port,
  protocol: 'tcp',
  service: null,
  product,
  version,
  cpes: [],
  confidence: 1,
  banner: null,
  evidence: '',
  tls: false,
  detectedBy: 'rampart',
});

describe('the nmap -sV baseline', () => {
  it('reads the open ports with their product, version and CPE', async () => {
    expect(await readNmapServices(XML)).toEqual([
      {
        address: '198.18.5.10',
        port: 22,
        service: 'ssh',
        product: 'OpenSSH',
        version: '9.2p1 Debian 2+deb12u10',
        cpe: 'cpe:/a:openbsd:openssh:9.2p1',
      },
      { address: '198.18.5.22', port: 22, service: 'ssh', product: null, version: null, cpe: null },
      {
        address: '198.18.5.22',
        port: 6379,
        service: 'redis',
        product: 'Redis key-value store',
        version: '7.0.15',
        cpe: 'cpe:/a:redislabs:redis:7.0.15',
      },
    ]);
  });

  it('compares products by name or nmap’s longer name, and versions by nmap’s first word', () => {
    expect(sameProduct('OpenSSH', 'OpenSSH')).toBe(true);
    expect(sameProduct('Redis', 'Redis key-value store')).toBe(true);
    expect(sameProduct('nginx', 'nginx')).toBe(true);
    expect(sameProduct('Red', 'Redis key-value store')).toBe(false);
    expect(sameProduct(null, 'OpenSSH')).toBe(false);
    expect(sameVersion('9.2p1', '9.2p1 Debian 2+deb12u10')).toBe(true);
    expect(sameVersion('9.2', '9.2p1 Debian 2+deb12u10')).toBe(false);
    expect(sameVersion(null, '7.0.15')).toBe(false);
    expect(sameVersion(null, null)).toBe(true);
  });

  it('counts the ports nmap identified and those where Rampart says the same, and names the others', async () => {
    const nmap = await readNmapServices(XML);
    const both = compareWithNmap(
      [
        { address: '198.18.5.10', services: [service(22, 'OpenSSH', '9.2p1')] },
        { address: '198.18.5.22', services: [service(6379, 'Redis', '7.0.15')] },
      ],
      nmap,
    );
    expect(both).toEqual({ identified: 2, same: 2, differences: [] });

    const wrong = compareWithNmap(
      [{ address: '198.18.5.10', services: [service(22, 'OpenSSH', '9.2')] }],
      nmap,
    );
    expect(wrong.identified).toBe(2);
    expect(wrong.same).toBe(0);
    expect(wrong.differences).toEqual([
      '198.18.5.10:22: nmap OpenSSH 9.2p1 Debian 2+deb12u10, Rampart OpenSSH 9.2',
      '198.18.5.22:6379: nmap Redis key-value store 7.0.15, Rampart nothing',
    ]);
  });

  it('refuses to run without addresses or ports, and refuses what is not nmap XML', async () => {
    await expect(nmapVersionScan([], [22], 1000)).rejects.toThrow(/addresses must not be empty/);
    await expect(nmapVersionScan(['198.18.5.10'], [], 1000)).rejects.toThrow(/ports must not be empty/);
    await expect(readNmapServices('<html></html>')).rejects.toThrow(/Not an Nmap XML report/);
  });
});
