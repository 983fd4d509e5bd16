import { describe, expect, it } from 'vitest';
import {
  identifiersOf,
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
});
