import { describe, expect, it } from 'vitest';
import {
  addressRefusal,
  checkDestination,
  type DestinationRefusal,
  isDestinationRefusal,
} from '../../../src/lib/destination.js';
import { startReceiver } from './receiver.js';

const strict = { allowLoopback: false, allowPrivate: false };
const loopbackAllowed = { allowLoopback: true, allowPrivate: false };
const everythingAllowed = { allowLoopback: true, allowPrivate: true };
/** A resolver that answers what a test's DNS would: no lookup leaves the machine. */
const resolverOf =
  (answers: Record<string, string[]>) =>
  async (name: string): Promise<string[]> => {
    const found = answers[name];
    if (!found) throw new Error(`getaddrinfo ENOTFOUND ${name}`);
    return found;
  };

async function refusal(url: string, policy = strict, resolve = resolverOf({})): Promise<DestinationRefusal> {
  const result = await checkDestination(url, policy, resolve);
  if (!isDestinationRefusal(result)) throw new Error(`${url} was allowed`);
  return result;
}

describe('the notification destination guard', () => {
  it('refuses link-local and cloud metadata addresses whatever the settings', async () => {
    expect(await refusal('http://169.254.169.254/latest/meta-data/', everythingAllowed)).toMatchObject({
      rule: 'AlwaysRefused',
      message: expect.stringContaining('169.254.169.254'),
    });
    expect((await refusal('http://[fe80::1]/', everythingAllowed)).rule).toBe('AlwaysRefused');
    expect((await refusal('http://[fd00:ec2::254]/', everythingAllowed)).rule).toBe('Metadata');
    expect((await refusal('http://100.100.100.200/', everythingAllowed)).rule).toBe('Metadata');
    expect(
      (await refusal('http://metadata.google.internal/computeMetadata/v1/', everythingAllowed)).rule,
    ).toBe('Metadata');
    // IPv4-mapped IPv6 and NAT64 forms are judged as the IPv4 address they reach.
    expect((await refusal('http://[::ffff:169.254.169.254]/', everythingAllowed)).rule).toBe('AlwaysRefused');
    expect((await refusal('http://[64:ff9b::a9fe:a9fe]/', everythingAllowed)).rule).toBe('AlwaysRefused');
  });

  it('refuses multicast, unspecified, broadcast and reserved addresses', async () => {
    for (const url of [
      'http://224.0.0.1/',
      'http://0.0.0.0/',
      'http://255.255.255.255/',
      'http://240.0.0.1/',
      'http://[::]/',
      'http://[ff02::1]/',
    ])
      expect((await refusal(url, everythingAllowed)).rule, url).toBe('AlwaysRefused');
  });

  it('refuses schemes other than http and https, and what is not a URL', async () => {
    expect(await refusal('file:///etc/passwd')).toMatchObject({
      rule: 'Scheme',
      message: expect.stringContaining('file:'),
    });
    expect((await refusal('ftp://example.com/x')).rule).toBe('Scheme');
    expect((await refusal('gopher://example.com/')).rule).toBe('Scheme');
    expect((await refusal('not a url')).rule).toBe('Syntax');
  });

  it('refuses loopback and private networks unless the server allows them', async () => {
    expect(await refusal('http://127.0.0.1:8080/hook')).toMatchObject({
      rule: 'Loopback',
      message: expect.stringContaining('RAMPART_NOTIFY_ALLOW_LOOPBACK=true'),
    });
    // The URL parser turns the odd notations of 127.0.0.1 into the dotted one first.
    expect((await refusal('http://2130706433/')).rule).toBe('Loopback');
    expect((await refusal('http://0x7f.1/')).rule).toBe('Loopback');
    expect((await refusal('http://localhost/')).rule).toBe('Loopback');
    expect((await refusal('http://[::1]/')).rule).toBe('Loopback');
    expect(await refusal('http://10.1.2.3/', loopbackAllowed)).toMatchObject({
      rule: 'Private',
      message: expect.stringContaining('RAMPART_NOTIFY_ALLOW_PRIVATE=true'),
    });
    expect((await refusal('http://192.168.1.1/', loopbackAllowed)).rule).toBe('Private');
    expect((await refusal('http://[fd12::1]/', loopbackAllowed)).rule).toBe('Private');
    expect(await checkDestination('http://127.0.0.1:8080/hook', loopbackAllowed)).toMatchObject({
      address: '127.0.0.1',
    });
    expect(await checkDestination('http://10.1.2.3/', everythingAllowed)).toMatchObject({
      address: '10.1.2.3',
    });
  });

  it('resolves a host name and refuses it when any of its addresses is refused', async () => {
    const resolve = resolverOf({
      'hooks.example.com': ['203.0.113.10'],
      'rebind.example.com': ['203.0.113.11', '169.254.169.254'],
      'inside.example.com': ['10.0.0.5'],
    });
    const ok = await checkDestination('https://hooks.example.com/rampart', strict, resolve);
    expect(ok).toMatchObject({ address: '203.0.113.10' });
    expect(await refusal('https://rebind.example.com/', strict, resolve)).toMatchObject({
      rule: 'AlwaysRefused',
      message: expect.stringContaining('rebind.example.com resolves to 169.254.169.254'),
    });
    expect((await refusal('https://inside.example.com/', strict, resolve)).rule).toBe('Private');
    expect(await refusal('https://nowhere.example.com/', strict, resolve)).toMatchObject({
      rule: 'Unresolved',
      message: expect.stringContaining('nowhere.example.com'),
    });
  });

  it('judges one address the same way', () => {
    expect(addressRefusal('169.254.169.254', everythingAllowed)?.rule).toBe('AlwaysRefused');
    expect(addressRefusal('127.0.0.1', strict)?.rule).toBe('Loopback');
    expect(addressRefusal('127.0.0.1', loopbackAllowed)).toBeNull();
    expect(addressRefusal('8.8.8.8', strict)).toBeNull();
  });

  it('connects to the checked address, with the host name in the Host header', async () => {
    const receiver = await startReceiver();
    try {
      const { postTo } = await import('../../../src/lib/outbound-http.js');
      const port = new URL(receiver.url).port;
      // A name whose "DNS" answers 127.0.0.1: the request goes there and names the host.
      const checked = await checkDestination(
        `http://receiver.test:${port}/hook`,
        loopbackAllowed,
        resolverOf({ 'receiver.test': ['127.0.0.1'] }),
      );
      if (isDestinationRefusal(checked)) throw new Error(checked.message);
      const answer = await postTo(
        checked,
        '{}',
        { 'Content-Type': 'application/json' },
        {
          timeoutMs: 2000,
          userAgent: 'test',
        },
      );
      expect(answer.status).toBe(200);
      expect(receiver.received[0]?.headers.host).toBe(`receiver.test:${port}`);
    } finally {
      await receiver.close();
    }
  });
});
