import { describe, expect, it } from 'vitest';
import {
  identifiersOf,
  keepValidIdentifiers,
  normaliseFqdn,
  normaliseIp,
  normaliseMac,
  normaliseUrl,
} from '../../../src/modules/assets/identity.js';

describe('asset identity', () => {
  it('normalises addresses and names so that the same asset compares equal', () => {
    expect(normaliseIp(' 010.0.0.5 ')).toBeUndefined(); // leading zeros are ambiguous (octal), refused
    expect(normaliseIp('10.0.0.5')).toBe('10.0.0.5');
    expect(normaliseIp('2001:DB8:0:0:0:0:0:1')).toBe('2001:db8::1');
    expect(normaliseIp('not-an-ip')).toBeUndefined();
    expect(normaliseFqdn('Web01.Example.COM.')).toBe('web01.example.com');
    expect(normaliseFqdn('localhost')).toBeUndefined();
    expect(normaliseMac('00-1A-2b-3C-4d-5E')).toBe('00:1a:2b:3c:4d:5e');
    expect(normaliseMac('00:1a:2b')).toBeUndefined();
    expect(normaliseUrl('HTTPS://Shop.Example.com:443/app/')).toBe('https://shop.example.com/app');
    expect(normaliseUrl('https://shop.example.com:8443')).toBe('https://shop.example.com:8443');
    expect(normaliseUrl('ftp://x.example.com')).toBeUndefined();
    expect(normaliseUrl('not a url')).toBeUndefined();
  });

  it('lists identifiers strongest first and uses a bare hostname only as a last resort', () => {
    expect(
      identifiersOf({
        kind: 'Host',
        fqdn: 'db.example.com',
        ipAddresses: ['10.0.0.9'],
        macAddresses: ['00:11:22:33:44:55'],
        hostname: 'db',
      }),
    ).toEqual([
      { kind: 'mac', value: '00:11:22:33:44:55' },
      { kind: 'fqdn', value: 'db.example.com' },
      { kind: 'ip', value: '10.0.0.9' },
    ]);
    expect(identifiersOf({ kind: 'Host', hostname: 'PRINTER7' })).toEqual([
      { kind: 'hostname', value: 'printer7' },
    ]);
    expect(
      identifiersOf({ kind: 'WebApplication', url: 'https://a.example.com/', fqdn: 'a.example.com' }),
    ).toEqual([{ kind: 'url', value: 'https://a.example.com' }]);
  });

  it('does not take a dotted number for a domain name: no top-level domain is all digits', () => {
    expect(normaliseFqdn('192.168.1.1001')).toBeUndefined();
    expect(normaliseFqdn('10.0.0.5')).toBeUndefined();
    expect(normaliseFqdn('host1.example.c0m')).toBe('host1.example.c0m');
  });

  it('counts a host name beside a MAC address: a MAC alone names no machine a report can share', () => {
    expect(
      identifiersOf({ kind: 'Host', hostname: 'server99', macAddresses: ['00:11:22:33:44:55'] }),
    ).toEqual([
      { kind: 'mac', value: '00:11:22:33:44:55' },
      { kind: 'hostname', value: 'server99' },
    ]);
  });

  it('keeps what a report says of a host minus each identifier that is not valid, and names what it left out', () => {
    // Nessus writes the short name into host-fqdn; the host has an address and a MAC.
    expect(
      keepValidIdentifiers({
        kind: 'Host',
        fqdn: 'QA3APP01',
        ipAddresses: ['10.3.0.17'],
        macAddresses: ['00:50:56:a1:2b:3c'],
      }),
    ).toEqual({
      identity: {
        kind: 'Host',
        hostname: 'QA3APP01',
        ipAddresses: ['10.3.0.17'],
        macAddresses: ['00:50:56:a1:2b:3c'],
      },
      dropped: [],
    });
    const kept = keepValidIdentifiers({
      kind: 'Host',
      fqdn: 'qa3app01..corp',
      hostname: 'qa3 app01',
      ipAddresses: ['10.3.0.17', '192.168.1.1001'],
      macAddresses: ['00:50:56', '00:50:56:a1:2b:3c'],
    });
    expect(kept.identity).toEqual({
      kind: 'Host',
      ipAddresses: ['10.3.0.17'],
      macAddresses: ['00:50:56:a1:2b:3c'],
    });
    expect(kept.dropped).toEqual([
      { field: 'Fqdn', value: 'qa3app01..corp', reason: 'is not a host or domain name' },
      { field: 'Hostname', value: 'qa3 app01', reason: 'is not a host name' },
      { field: 'IpAddresses', value: '192.168.1.1001', reason: 'is not an IP address' },
      { field: 'MacAddresses', value: '00:50:56', reason: 'is not a MAC address' },
    ]);
    // A short name given as the FQDN beside another host name is left out: it names nothing new.
    expect(keepValidIdentifiers({ kind: 'Host', fqdn: 'web01', hostname: 'WEB01' }).identity).toEqual({
      kind: 'Host',
      hostname: 'WEB01',
    });
    expect(keepValidIdentifiers({ kind: 'WebApplication', url: 'ftp://files.example.com' })).toEqual({
      identity: { kind: 'WebApplication' },
      dropped: [{ field: 'Url', value: 'ftp://files.example.com', reason: 'is not an http(s) URL' }],
    });
  });
});
