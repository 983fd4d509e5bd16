import { describe, expect, it } from 'vitest';
import { parseCpe23 } from '../../../src/intel/cpe/cpe.js';
import { identify, type ServiceGuess } from '../../../src/scanning/fingerprints/index.js';

const NGINX_ALIASES = ['igor_sysoev:nginx', 'nginx:nginx', 'f5:nginx', 'f5:nginx_open_source'];

/** vendor:product:version:update of each CPE, checked to parse as a CPE 2.3 name. */
function names(found: ServiceGuess | null): string[] {
  return (found?.cpes ?? []).map((text) => {
    const parsed = parseCpe23(text);
    if (!parsed.ok) throw new Error(`${text}: ${parsed.error}`);
    return `${parsed.cpe.vendor}:${parsed.cpe.product}:${parsed.cpe.version}:${parsed.cpe.update}`;
  });
}

describe('SSH banners', () => {
  it('reads OpenSSH with a p1 release and an Ubuntu comment; NVD files p1 as the update', () => {
    const found = identify({ port: 22, banner: 'SSH-2.0-OpenSSH_8.9p1 Ubuntu-3ubuntu0.10\r\n' });
    expect(found).toEqual({
      service: 'ssh',
      product: 'OpenSSH',
      version: '8.9p1',
      cpes: ['cpe:2.3:a:openbsd:openssh:8.9:p1:*:*:*:*:*:*'],
      confidence: 0.95,
      evidence: 'SSH-2.0-OpenSSH_8.9p1 Ubuntu-3ubuntu0.10',
    });
  });

  it("reads Debian's OpenSSH banner, as the sshd installed here sends it", () => {
    const found = identify({
      port: 2222,
      banner: Buffer.from('SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u10\r\n'),
    });
    expect(found?.product).toBe('OpenSSH');
    expect(found?.version).toBe('9.2p1');
    expect(names(found)).toEqual(['openbsd:openssh:9.2:p1']);
  });

  it('keeps a version without a portable suffix whole, and reads OpenSSH for Windows', () => {
    expect(names(identify({ port: 22, banner: 'SSH-2.0-OpenSSH_7.4' }))).toEqual(['openbsd:openssh:7.4:*']);
    expect(identify({ port: 22, banner: 'SSH-2.0-OpenSSH_for_Windows_8.1' })?.version).toBe('8.1');
    expect(names(identify({ port: 22, banner: 'SSH-2.0-OpenSSH_9.2p1-hpn14v15 FreeBSD-20230316' }))).toEqual([
      'openbsd:openssh:9.2:p1',
    ]);
  });

  it('reads Dropbear with and without a version', () => {
    const found = identify({ port: 22, banner: 'SSH-2.0-dropbear_2022.83\r\n' });
    expect([found?.product, found?.version]).toEqual(['Dropbear', '2022.83']);
    expect(names(found)).toEqual(['dropbear_ssh_project:dropbear_ssh:2022.83:*']);
    expect(identify({ port: 22, banner: 'SSH-2.0-dropbear' })?.version).toBeNull();
  });

  it('knows an unknown SSH server as SSH, without a product or CPE', () => {
    expect(identify({ port: 22, banner: 'SSH-2.0-Cisco-1.25' })).toMatchObject({
      service: 'ssh',
      product: null,
      version: null,
      cpes: [],
      confidence: 0.5,
    });
  });
});

describe('HTTP Server headers', () => {
  it('names nginx under all four of its NVD vendors', () => {
    const found = identify({ port: 80, httpHeaders: { Server: 'nginx/1.22.1' } });
    expect(found).toMatchObject({
      service: 'http',
      product: 'nginx',
      version: '1.22.1',
      evidence: 'Server: nginx/1.22.1',
    });
    expect(names(found)).toEqual(NGINX_ALIASES.map((alias) => `${alias}:1.22.1:*`));
  });

  it('reads Apache httpd past its comment, header names in any case, https by port', () => {
    const found = identify({ port: 443, httpHeaders: { server: 'Apache/2.4.52 (Ubuntu)' } });
    expect(found).toMatchObject({ service: 'https', product: 'Apache httpd', version: '2.4.52' });
    expect(found?.cpes).toEqual(['cpe:2.3:a:apache:http_server:2.4.52:*:*:*:*:*:*:*']);
  });

  it('takes the first known product of several tokens', () => {
    const found = identify({
      port: 80,
      httpHeaders: { SERVER: 'Apache/2.4.57 (Debian) OpenSSL/3.0.11 mod_wsgi/4.9.4' },
    });
    expect([found?.product, found?.version]).toEqual(['Apache httpd', '2.4.57']);
  });

  it.each([
    ['Microsoft-IIS/10.0', 'Microsoft IIS', '10.0', 'microsoft:internet_information_services'],
    ['lighttpd/1.4.69', 'lighttpd', '1.4.69', 'lighttpd:lighttpd'],
    ['Caddy', 'Caddy', null, 'caddyserver:caddy'],
    ['openresty/1.21.4.1', 'OpenResty', '1.21.4.1', 'openresty:openresty'],
    ['nginx', 'nginx', null, 'igor_sysoev:nginx'],
  ])('reads "Server: %s"', (server, product, version, firstAlias) => {
    const found = identify({ port: 8080, httpHeaders: { Server: server } });
    expect([found?.product, found?.version]).toEqual([product, version]);
    expect(names(found)[0]).toBe(`${firstAlias}:${version ?? '*'}:*`);
    expect(found?.confidence).toBe(version ? 0.95 : 0.8);
  });

  it('reads the Server header of a raw response banner', () => {
    const banner =
      'HTTP/1.1 400 Bad Request\r\nServer: nginx/1.22.1\r\nContent-Type: text/html\r\n\r\n<html>';
    expect(identify({ port: 8000, banner })).toMatchObject({
      service: 'http',
      product: 'nginx',
      version: '1.22.1',
    });
  });

  it('knows HTTP without a Server header as HTTP only; an unknown Server names its first token', () => {
    expect(identify({ port: 80, httpHeaders: { 'Content-Type': 'text/html' } })).toMatchObject({
      service: 'http',
      product: null,
      cpes: [],
    });
    // As a web scan reads it (softwareOf): the token is the product, with no CPE to guess.
    expect(identify({ port: 80, httpHeaders: { Server: 'gws' } })).toMatchObject({
      product: 'gws',
      version: null,
      cpes: [],
      evidence: 'Server: gws',
    });
    expect(identify({ port: 80, httpHeaders: { Server: '(none)' } })).toMatchObject({ product: null });
    expect(identify({ port: 80, banner: 'HTTP/1.0 200 OK\r\nDate: x\r\n\r\n' })?.product).toBeNull();
  });

  it('ignores a version token that is not a version', () => {
    expect(identify({ port: 80, httpHeaders: { Server: 'nginx/secret' } })).toMatchObject({
      product: 'nginx',
      version: null,
    });
  });
});

describe('FTP and SMTP greetings', () => {
  it('reads vsFTPd', () => {
    const found = identify({ port: 21, banner: '220 (vsFTPd 3.0.3)\r\n' });
    expect(found).toMatchObject({
      service: 'ftp',
      product: 'vsftpd',
      version: '3.0.3',
      evidence: '220 (vsFTPd 3.0.3)',
    });
    expect(names(found)).toEqual(['beasts:vsftpd:3.0.3:*']);
  });

  it('reads ProFTPD with and without its version', () => {
    const found = identify({ port: 21, banner: '220 ProFTPD 1.3.8 Server (Debian) [::ffff:127.0.0.1]\r\n' });
    expect(names(found)).toEqual(['proftpd:proftpd:1.3.8:*']);
    const bare = identify({
      port: 21,
      banner: '220 ProFTPD Server (ProFTPD Default Installation) [127.0.0.1]',
    });
    expect([bare?.product, bare?.version]).toEqual(['ProFTPD', null]);
  });

  it("reads Pure-FTPd's multi-line greeting", () => {
    const banner =
      '220---------- Welcome to Pure-FTPd [privsep] [TLS] ----------\r\n220-You are user number 1 of 50 allowed.\r\n220-Local time is now 12:00.\r\n';
    expect(identify({ port: 21, banner })).toMatchObject({
      service: 'ftp',
      product: 'Pure-FTPd',
      version: null,
    });
  });

  it('reads Postfix, Exim and Sendmail', () => {
    const postfix = identify({ port: 25, banner: '220 mail.example.com ESMTP Postfix (Debian/GNU)\r\n' });
    expect(postfix).toMatchObject({ service: 'smtp', product: 'Postfix', version: null, confidence: 0.8 });
    expect(postfix?.cpes).toEqual(['cpe:2.3:a:postfix:postfix:*:*:*:*:*:*:*:*']);
    const exim = identify({
      port: 25,
      banner: '220 mx.example.com ESMTP Exim 4.96 Thu, 26 Nov 2026 02:46:43 +0000\r\n',
    });
    expect(names(exim)).toEqual(['exim:exim:4.96:*']);
    const sendmail = identify({
      port: 587,
      banner: '220 mail.example.com ESMTP Sendmail 8.15.2/8.15.2; Thu, 26 Nov 2026 02:46:43 GMT\r\n',
    });
    expect(names(sendmail)).toEqual(['sendmail:sendmail:8.15.2:*']);
  });

  it('tells an unknown 220 greeting by its text, else by its port, else not at all', () => {
    expect(identify({ port: 2500, banner: '220 relay.example.com ESMTP ready' })).toMatchObject({
      service: 'smtp',
      product: null,
    });
    expect(identify({ port: 21, banner: '220 Welcome' })).toMatchObject({ service: 'ftp', product: null });
    expect(identify({ port: 25, banner: '220 Welcome' })).toMatchObject({ service: 'smtp', product: null });
    expect(identify({ port: 9999, banner: '220 Welcome' })).toBeNull();
  });
});

describe('IMAP and POP3 greetings', () => {
  it('reads Dovecot over IMAP and POP3', () => {
    const imap = identify({
      port: 143,
      banner:
        '* OK [CAPABILITY IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE IDLE LITERAL+ STARTTLS AUTH=PLAIN] Dovecot (Debian) ready.\r\n',
    });
    expect(imap).toMatchObject({ service: 'imap', product: 'Dovecot', version: null });
    expect(imap?.cpes).toEqual(['cpe:2.3:a:dovecot:dovecot:*:*:*:*:*:*:*:*']);
    expect(identify({ port: 110, banner: '+OK Dovecot (Debian) ready.\r\n' })).toMatchObject({
      service: 'pop3',
      product: 'Dovecot',
    });
  });

  it('knows another IMAP server as IMAP only', () => {
    expect(identify({ port: 143, banner: '* OK IMAP4rev1 Service Ready' })).toMatchObject({
      service: 'imap',
      product: null,
    });
  });
});

describe('Redis', () => {
  it('reads the answers to PING, with or without a password set', () => {
    // The texts as redis-server 7.0 (installed here) has them.
    for (const banner of [
      '+PONG\r\n',
      '-NOAUTH Authentication required.\r\n',
      '-DENIED Redis is running in protected mode because protected mode is enabled\r\n',
    ]) {
      expect(identify({ port: 6379, banner })).toMatchObject({
        service: 'redis',
        product: 'Redis',
        version: null,
      });
    }
  });

  it('reads the version from INFO, under both NVD vendors', () => {
    const banner =
      '$3728\r\n# Server\r\nredis_version:7.0.15\r\nredis_git_sha1:00000000\r\nredis_mode:standalone\r\n';
    const found = identify({ port: 6379, banner });
    expect(found).toMatchObject({ product: 'Redis', version: '7.0.15', evidence: 'redis_version:7.0.15' });
    expect(names(found)).toEqual(['redis:redis:7.0.15:*', 'redislabs:redis:7.0.15:*']);
  });
});

describe('unknown services', () => {
  it('returns null for what it does not know', () => {
    expect(identify({ port: 12345 })).toBeNull();
    expect(identify({ port: 12345, banner: '' })).toBeNull();
    expect(identify({ port: 12345, banner: 'hello there\r\n' })).toBeNull();
    expect(identify({ port: 5432, banner: Buffer.from([0x4e, 0x00, 0x00]) })).toBeNull();
  });
});
