import net from 'node:net';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  probeTls,
  SSLV3_NOTE,
  speaksTls,
  type TlsReport,
  tlsChecks,
} from '../../../src/scanning/tls/index.js';
import { makeCertificate, type TestCertificate } from './certs.js';

const DAY = 86_400_000;
const servers: net.Server[] = [];
const sockets = new Set<net.Socket>();

async function listen(server: net.Server): Promise<number> {
  servers.push(server);
  // Silent servers never read, so they never see the client go: close their sockets at the end.
  server.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as net.AddressInfo).port;
}

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  for (const s of servers) await new Promise((resolve) => s.close(resolve));
});

function tlsServer(cert: TestCertificate, options: tls.TlsOptions = {}): Promise<number> {
  const server = tls.createServer({ key: cert.key, cert: cert.cert, ...options }, (socket) => {
    socket.on('error', () => undefined);
    socket.end();
  });
  server.on('tlsClientError', () => undefined);
  return listen(server);
}

describe('a legacy server: TLS 1.0, static RSA, an expired self-signed 1024-bit certificate', () => {
  let cert: TestCertificate;
  let port: number;
  let report: TlsReport | null;
  beforeAll(async () => {
    cert = makeCertificate({ commonName: 'legacy.test', altNames: ['DNS:legacy.test'], key: 'rsa:1024' });
    port = await tlsServer(cert, { minVersion: 'TLSv1', ciphers: 'DEFAULT:@SECLEVEL=0' });
    report = await probeTls('127.0.0.1', port, { servername: 'other.test', timeoutMs: 5000 });
  });

  it('reports every version it accepts, the weak suites, and the certificate', () => {
    expect(report).not.toBeNull();
    expect(report?.versions).toEqual({
      TLSv1: 'Accepted',
      'TLSv1.1': 'Accepted',
      'TLSv1.2': 'Accepted',
      'TLSv1.3': 'Accepted',
    });
    expect(report?.sslv3).toBe('NotProbed');
    expect(report?.notes).toContain(SSLV3_NOTE);
    expect(report?.weakCiphers.some((c) => /^AES\d+-.*static RSA/.test(c))).toBe(true);
    expect(report?.certificate).toMatchObject({
      subject: 'CN=legacy.test',
      issuer: 'CN=legacy.test',
      subjectAltNames: ['DNS:legacy.test'],
      selfSigned: true,
      trusted: false,
      trustError: 'DEPTH_ZERO_SELF_SIGNED_CERT',
      keyType: 'rsa',
      keyBits: 1024,
      signatureAlgorithm: 'sha256WithRSAEncryption',
      chainLength: 1,
      notAfter: cert.notAfter.toISOString(),
    });
    expect(report?.certificate?.fingerprintSha256).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
  });

  it('makes every TLS check from it, judged against the injected clock', () => {
    const now = new Date(cert.notAfter.getTime() + 3 * DAY + 60_000);
    const checks = tlsChecks(report as TlsReport, { now, hostname: 'other.test', port, url: null });
    const byId = new Map(checks.map((c) => [c.checkId, c]));
    expect([...byId.keys()].sort()).toEqual([
      'tls.certificate-expired',
      'tls.certificate-name-mismatch',
      'tls.certificate-self-signed',
      'tls.legacy-version',
      'tls.weak-cipher',
      'tls.weak-key',
    ]);
    expect(byId.get('tls.legacy-version')?.evidence).toMatch(
      /^Handshake completed with TLSv1 \(cipher [A-Z0-9-]+\); Handshake completed with TLSv1\.1 \(cipher /,
    );
    expect(byId.get('tls.certificate-expired')?.evidence).toContain(
      `notAfter ${cert.notAfter.toISOString().replace('.000Z', 'Z')}, 3 days before the scan`,
    );
    expect(byId.get('tls.certificate-name-mismatch')?.evidence).toBe(
      'Reached as other.test; certificate names: CN=legacy.test, DNS:legacy.test',
    );
    expect(byId.get('tls.weak-key')?.evidence).toMatch(/^RSA key of 1024 bits;/);
    expect(checks.every((c) => c.port === port && c.url === null)).toBe(true);
  });

  it('does not call a valid certificate expired, nor the right name a mismatch', () => {
    const now = new Date(cert.notBefore.getTime() + DAY);
    const ids = tlsChecks(report as TlsReport, { now, hostname: 'legacy.test', port, url: null }).map(
      (c) => c.checkId,
    );
    expect(ids).not.toContain('tls.certificate-expired');
    expect(ids).not.toContain('tls.certificate-name-mismatch');
  });

  it('calls a certificate not yet valid at the scan time out of its validity', () => {
    const now = new Date(cert.notBefore.getTime() - 2 * DAY - 60_000);
    const expired = tlsChecks(report as TlsReport, { now, hostname: null, port, url: null }).find(
      (c) => c.checkId === 'tls.certificate-expired',
    );
    expect(expired?.evidence).toMatch(/^notBefore \S+Z, 2 days after the scan/);
  });
});

describe('a modern server: TLS 1.2 and 1.3 with an EC P-256 certificate', () => {
  let cert: TestCertificate;
  let port: number;
  beforeAll(async () => {
    cert = makeCertificate({
      commonName: 'good.test',
      altNames: ['DNS:good.test', 'DNS:*.good.test'],
      key: 'ec:prime256v1',
    });
    port = await tlsServer(cert);
  });

  it('refuses TLS 1.0 and 1.1 and has no weak suite; only the untrusted certificate is reported', async () => {
    const report = await probeTls('127.0.0.1', port, { servername: 'www.good.test', timeoutMs: 5000 });
    expect(report?.versions).toEqual({
      TLSv1: 'Refused',
      'TLSv1.1': 'Refused',
      'TLSv1.2': 'Accepted',
      'TLSv1.3': 'Accepted',
    });
    expect(report?.weakCiphers).toEqual([]);
    expect(report?.certificate).toMatchObject({ keyType: 'ec', keyBits: 256, selfSigned: true });
    const now = new Date(cert.notBefore.getTime() + DAY);
    const checks = tlsChecks(report as TlsReport, {
      now,
      hostname: 'www.good.test',
      port: null,
      url: 'https://www.good.test/',
    });
    expect(checks.map((c) => c.checkId)).toEqual(['tls.certificate-self-signed']);
    expect(checks[0]?.url).toBe('https://www.good.test/');
  });

  it('answers that the port speaks TLS', async () => {
    expect(await speaksTls('127.0.0.1', port, { timeoutMs: 5000 })).toBe(true);
  });

  it('sees a TLS 1.3-only server refuse TLS 1.2', async () => {
    const only13 = await tlsServer(cert, { minVersion: 'TLSv1.3' });
    const report = await probeTls('127.0.0.1', only13, { timeoutMs: 5000 });
    expect(report?.versions).toEqual({
      TLSv1: 'Refused',
      'TLSv1.1': 'Refused',
      'TLSv1.2': 'Refused',
      'TLSv1.3': 'Accepted',
    });
    expect(report?.weakCiphers).toEqual([]);
  });
});

describe('ports that are not TLS', () => {
  it('a plain TCP server is not TLS: null and false', async () => {
    let connections = 0;
    const port = await listen(
      net.createServer((socket) => {
        connections++;
        socket.on('error', () => undefined);
        socket.end('HTTP/1.0 400 Bad Request\r\n\r\n');
      }),
    );
    expect(await probeTls('127.0.0.1', port, { timeoutMs: 2000 })).toBeNull();
    expect(await speaksTls('127.0.0.1', port, { timeoutMs: 2000 })).toBe(false);
    // One handshake each: a port that fails the first is not probed further.
    expect(connections).toBe(2);
  });

  it('a silent server times out as not TLS', async () => {
    const port = await listen(net.createServer((socket) => socket.on('error', () => undefined)));
    expect(await probeTls('127.0.0.1', port, { timeoutMs: 150 })).toBeNull();
    expect(await speaksTls('127.0.0.1', port, { timeoutMs: 150 })).toBe(false);
  });

  it('a closed port is not TLS', async () => {
    const server = net.createServer();
    const port = await listen(server);
    await new Promise((resolve) => server.close(resolve));
    servers.splice(servers.indexOf(server), 1);
    expect(await probeTls('127.0.0.1', port, { timeoutMs: 2000 })).toBeNull();
  });

  it('an abort stops the probe with the signal reason', async () => {
    const port = await listen(net.createServer((socket) => socket.on('error', () => undefined)));
    const controller = new AbortController();
    const probing = probeTls('127.0.0.1', port, { timeoutMs: 60_000, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('stopped by test')), 50);
    await expect(probing).rejects.toThrow('stopped by test');
    await expect(
      speaksTls('127.0.0.1', port, { timeoutMs: 1000, signal: controller.signal }),
    ).rejects.toThrow('stopped by test');
  });
});

describe('bad options', () => {
  it.each([
    ['not-an-ip', 443, { timeoutMs: 1000 }, /address/],
    ['127.0.0.1', 0, { timeoutMs: 1000 }, /port/],
    ['127.0.0.1', 70_000, { timeoutMs: 1000 }, /port/],
    ['127.0.0.1', 443, { timeoutMs: 0 }, /timeoutMs/],
    ['127.0.0.1', 443, { timeoutMs: Number.NaN }, /timeoutMs/],
    ['127.0.0.1', 443, { timeoutMs: 1.5 }, /timeoutMs/],
    ['127.0.0.1', 443, { timeoutMs: 1000, servername: 'a b' }, /servername/],
    ['127.0.0.1', 443, { timeoutMs: 1000, signal: 'no' }, /signal/],
  ])('%s:%s %o → RangeError', async (address, port, options, message) => {
    await expect(probeTls(address, port, options as never)).rejects.toThrow(RangeError);
    await expect(speaksTls(address, port, options as never)).rejects.toThrow(message);
  });

  it('tlsChecks wants a valid clock', () => {
    const report: TlsReport = {
      versions: { TLSv1: 'Unknown', 'TLSv1.1': 'Unknown', 'TLSv1.2': 'Accepted', 'TLSv1.3': 'Accepted' },
      sslv3: 'NotProbed',
      weakCiphers: [],
      certificate: null,
      alpn: null,
      notes: [],
    };
    expect(() =>
      tlsChecks(report, { now: new Date(Number.NaN), hostname: null, port: 443, url: null }),
    ).toThrow(/now/);
    // Versions that could not be judged are not reported as accepted.
    expect(tlsChecks(report, { now: new Date(0), hostname: null, port: 443, url: null })).toEqual([]);
  });
});
