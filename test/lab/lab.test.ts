// The lab itself: a lab whose process was killed (no afterAll, no exit handler) is swept by the
// next one, and a lab whose process lives is left alone; its daemons answer as scans expect.

import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLab, expiredValidity, type Lab, labAvailable, sweepStaleLabs } from './lab.js';

const LAB = path.join(import.meta.dirname, 'lab.ts');

const namespaces = () => execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' });
const bridges = () => execFileSync('ip', ['-o', 'link', 'show', 'type', 'bridge'], { encoding: 'utf8' });

/** Starts a lab in a child process; resolves with its bridge once it is ready. */
function labInChild(): Promise<{ bridge: string; pid: number; kill(): void }> {
  const script = `
    const { createLab } = await import(${JSON.stringify(LAB)});
    const lab = await createLab([{ name: 'a', index: 2 }, { name: 'b', index: 3, daemons: ['http'] }]);
    console.log(JSON.stringify({ bridge: lab.bridge }));
    setInterval(() => {}, 1000);
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('\n')) {
        const { bridge } = JSON.parse(out.trim()) as { bridge: string };
        resolve({ bridge, pid: child.pid!, kill: () => child.kill('SIGKILL') });
      }
    });
    child.once('exit', (code) => reject(new Error(`the lab's process exited with ${code}`)));
  });
}

describe.runIf(labAvailable())('[lab] the lab', () => {
  it('is swept by the next lab when its process was killed, and only then', async () => {
    const lab = await labInChild();
    const slot = lab.bridge.slice('rlab'.length);
    const lock = `/tmp/rampart-lab-${slot}`;
    try {
      expect(namespaces()).toContain(`${lab.bridge}-h3`);
      sweepStaleLabs(); // its process is alive: left alone
      expect(bridges()).toContain(`${lab.bridge}:`);
      expect(fs.existsSync(lock)).toBe(true);
    } finally {
      lab.kill();
    }
    await expect.poll(() => isGone(lab.pid)).toBe(true);

    sweepStaleLabs();

    expect(namespaces()).not.toContain(`${lab.bridge}-h`);
    expect(bridges()).not.toContain(`${lab.bridge}:`);
    expect(fs.existsSync(lock)).toBe(false);
    const daemons = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' });
    expect(daemons).not.toMatch(new RegExp(`rampart-lab-files-${slot}-`));
  });
});

function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}

// The daemons with weaknesses, from plain TCP, TLS and HTTP clients: they answer as the scans
// expect, and a host can be changed between two scans.
describe.runIf(labAvailable())('[lab] the lab daemons', () => {
  // Far from today on purpose: the certificate follows the lab's clock, not the system's.
  const NOW = new Date('2031-06-15T12:00:00Z');
  let lab: Lab;
  beforeAll(async () => {
    lab = await createLab(
      [
        { name: 'legacy', index: 20, daemons: ['nginx-legacy-tls'], hostname: 'legacy.lab.test' },
        { name: 'soft', index: 21, daemons: ['nginx-soft404'] },
        { name: 'redis', index: 22, daemons: ['redis'] },
      ],
      { clock: () => NOW },
    );
    lab.assertRoutedIntoLab();
  });
  afterAll(() => lab?.teardown());
  const address = (name: string) => lab.hosts.get(name)!.address;

  it('redis answers without a password', async () => {
    const reply = await exchange(address('redis'), 6379, 'PING\r\nINFO server\r\n', '\r\nredis_version:');
    expect(reply).toMatch(/^\+PONG\r\n/);
    expect(reply).toMatch(/redis_version:\d+\.\d+/);
  });

  it('the legacy site speaks TLS 1.0 with an expired self-signed certificate made on the lab clock', async () => {
    const hello = await handshake(address('legacy'), 'TLSv1');
    expect(hello.protocol).toBe('TLSv1');
    const { notAfter, notBefore } = expiredValidity(NOW);
    expect(new Date(hello.certificate.valid_to).getTime()).toBe(Math.floor(notAfter.getTime() / 1000) * 1000);
    expect(new Date(hello.certificate.valid_from).getTime()).toBe(
      Math.floor(notBefore.getTime() / 1000) * 1000,
    );
    expect(notAfter.getTime()).toBeLessThan(NOW.getTime());
    expect(hello.certificate.subject.CN).toBe('legacy.lab.test');
    expect(hello.certificate.issuer).toEqual(hello.certificate.subject);
    expect(hello.certificate.subjectaltname).toContain(`IP Address:${address('legacy')}`);
    expect((await handshake(address('legacy'), 'TLSv1.2')).protocol).toBe('TLSv1.2');
  });

  it('the legacy site serves .git and .env on https and on http, without redirect or security headers', async () => {
    for (const base of [`https://${address('legacy')}`, `http://${address('legacy')}`]) {
      const page = await get(`${base}/`);
      expect(page.status).toBe(200);
      expect(page.headers.server).toMatch(/^nginx\/\d+\.\d+\.\d+$/);
      for (const header of ['strict-transport-security', 'content-security-policy', 'x-frame-options'])
        expect(page.headers[header]).toBeUndefined();
      expect(await get(`${base}/.git/HEAD`)).toMatchObject({ status: 200, body: 'ref: refs/heads/main\n' });
      expect((await get(`${base}/.env`)).body).toContain('DB_PASSWORD=');
      expect((await get(`${base}/nothing-here`)).status).toBe(404);
    }
  });

  it('the soft-404 site answers 200 with the same page to every path', async () => {
    const home = await get(`http://${address('soft')}/`);
    expect(home.status).toBe(200);
    for (const p of ['/.git/HEAD', '/.env', '/no/such/page'])
      expect(await get(`http://${address('soft')}${p}`)).toMatchObject({ status: 200, body: home.body });
  });

  it('refuses to change a host that has no legacy site', async () => {
    await expect(lab.disableLegacyTls('soft')).rejects.toThrow(/soft runs no nginx-legacy-tls/);
    expect(() => lab.removeGitDirectory('nobody')).toThrow(/nobody runs no nginx-legacy-tls/);
  });

  // Last: it changes the legacy host for good.
  it('after disableLegacyTls a TLS 1.0 handshake is refused; after removeGitDirectory .git is gone', async () => {
    await lab.disableLegacyTls('legacy');
    await expect(handshake(address('legacy'), 'TLSv1')).rejects.toThrow(
      /protocol version|alert|wrong version/i,
    );
    await expect(handshake(address('legacy'), 'TLSv1.1')).rejects.toThrow();
    expect((await handshake(address('legacy'), 'TLSv1.2')).protocol).toBe('TLSv1.2');
    expect((await handshake(address('legacy'), 'TLSv1.3')).protocol).toBe('TLSv1.3');
    expect((await get(`https://${address('legacy')}/.git/HEAD`)).status).toBe(200);

    lab.removeGitDirectory('legacy');

    expect((await get(`https://${address('legacy')}/.git/HEAD`)).status).toBe(404);
    expect((await get(`http://${address('legacy')}/.env`)).status).toBe(200);
  });
});

const CLIENT_TIMEOUT_MS = 5000;
const BODY_CAP = 64 * 1024;

/** Writes `request`, reads until `until` was seen (or the cap, or the peer closes). */
function exchange(host: string, port: number, request: string, until: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port, timeout: CLIENT_TIMEOUT_MS });
    let text = '';
    socket.on('connect', () => socket.write(request));
    socket.on('data', (c: Buffer) => {
      text += c.toString('latin1');
      if (text.includes(until) || text.length > BODY_CAP) socket.end();
    });
    socket.on('timeout', () => socket.destroy(new Error(`no answer from ${host}:${port}`)));
    socket.on('error', reject);
    socket.on('close', () => resolve(text));
  });
}

/** One handshake at exactly `version`, any cipher OpenSSL still has; no verification (we read the certificate). */
function handshake(host: string, version: tls.SecureVersion) {
  return new Promise<{ protocol: string | null; certificate: tls.PeerCertificate }>((resolve, reject) => {
    const socket = tls.connect({
      host,
      port: 443,
      minVersion: version,
      maxVersion: version,
      ciphers: 'DEFAULT:@SECLEVEL=0',
      rejectUnauthorized: false,
      timeout: CLIENT_TIMEOUT_MS,
    });
    socket.on('secureConnect', () => {
      resolve({ protocol: socket.getProtocol(), certificate: socket.getPeerCertificate() });
      socket.end();
    });
    socket.on('timeout', () => socket.destroy(new Error(`no TLS answer from ${host}`)));
    socket.on('error', reject);
  });
}

/** GET with the body read up to a cap; https without verification (the lab's certificate is self-signed). */
function get(url: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const client = url.startsWith('https:') ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.get(url, { rejectUnauthorized: false, timeout: CLIENT_TIMEOUT_MS }, (response) => {
      let body = '';
      response.on('data', (c: Buffer) => {
        if (body.length < BODY_CAP) body += c.toString('utf8');
      });
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
      );
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error(`no answer from ${url}`)));
    request.on('error', reject);
  });
}
