import { describe, expect, it } from 'vitest';
import {
  bson,
  dnsVersionQuery,
  identify,
  ldapRootDseSearch,
  MONGODB_REQUEST_ID,
  mongodbCommand,
  postgresSslAnswer,
  readBson,
  readSshKexinit,
  smbDialect,
  smbNegotiate,
  weakSshAlgorithms,
} from '../../../src/scanning/fingerprints/index.js';
import { CAPTURED } from './captured.js';

describe('answers captured from real servers', () => {
  it('PostgreSQL: AuthenticationOk then the error for a role that does not exist', () => {
    const found = identify({ port: 5432, banner: CAPTURED.postgresStartup, probe: 'postgresql' });
    expect(found).toMatchObject({ service: 'postgresql', product: 'PostgreSQL', version: null });
    expect(found?.evidence).toBe('PostgreSQL error 28000: role "rampart_probe" does not exist');
    expect(found?.cpes).toEqual(['cpe:2.3:a:postgresql:postgresql:*:*:*:*:*:*:*:*']);
    expect(postgresSslAnswer(CAPTURED.postgresSsl)).toBe('N');
    expect(postgresSslAnswer(Buffer.from('S'))).toBe('S');
    expect(postgresSslAnswer(Buffer.from('SS'))).toBeNull();
  });

  it('memcached, OpenLDAP, dnsmasq, Redis and MariaDB', () => {
    expect(identify({ port: 11211, banner: CAPTURED.memcached, probe: 'memcached' })).toMatchObject({
      service: 'memcached',
      product: 'memcached',
      version: '1.6.18',
      cpes: ['cpe:2.3:a:memcached:memcached:1.6.18:*:*:*:*:*:*:*'],
    });
    // Debian's slapd does not publish vendorName: LDAP is known, the product is not.
    const ldap = identify({ port: 389, banner: CAPTURED.ldap, probe: 'ldap' });
    expect(ldap).toMatchObject({ service: 'ldap', product: null });
    expect(ldap?.evidence).toBe('LDAP root DSE (LDAPv3)');
    expect(identify({ port: 53, banner: CAPTURED.dns, probe: 'dns' })).toMatchObject({
      service: 'dns',
      product: 'dnsmasq',
      version: '2.90',
      cpes: ['cpe:2.3:a:thekelleys:dnsmasq:2.90:*:*:*:*:*:*:*'],
    });
    expect(identify({ port: 6379, banner: CAPTURED.redisPing, probe: 'redis' })).toMatchObject({
      service: 'redis',
      product: 'Redis',
    });
    expect(identify({ port: 3306, banner: CAPTURED.mariadb })).toMatchObject({
      product: 'MariaDB',
      version: '10.11.19',
    });
  });

  it("OpenSSH's KEXINIT: stock Debian's offer has nothing weak (64-bit UMACs alone are not)", () => {
    const offer = readSshKexinit(CAPTURED.ssh);
    expect(offer?.kex).toContain('curve25519-sha256');
    expect(offer?.hostKey).toContain('ssh-ed25519');
    expect(offer?.ciphers).toContain('chacha20-poly1305@openssh.com');
    expect(offer?.macs).toContain('hmac-sha2-256-etm@openssh.com');
    expect(offer?.macs).toContain('umac-64@openssh.com');
    expect(weakSshAlgorithms(offer!)).toEqual([]);
  });

  it('weak algorithms are listed by category, host-key algorithms included', () => {
    const offer = readSshKexinit(CAPTURED.ssh)!;
    const weak = weakSshAlgorithms({
      ...offer,
      kex: ['diffie-hellman-group1-sha1', 'curve25519-sha256', 'diffie-hellman-group14-sha1'],
      hostKey: ['ssh-ed25519', 'rsa-sha2-512', 'ssh-rsa', 'ssh-dss'],
      ciphers: ['aes128-cbc', 'arcfour256', 'aes128-ctr', '3des-cbc', 'chacha20-poly1305@openssh.com'],
      macs: ['hmac-md5-96', 'hmac-sha1-96', 'hmac-sha2-256', 'umac-64@openssh.com', 'hmac-sha1'],
    });
    expect(weak.map((w) => `${w.category}:${w.name}`)).toEqual([
      'kex:diffie-hellman-group1-sha1',
      'kex:diffie-hellman-group14-sha1',
      'host-key:ssh-rsa',
      'host-key:ssh-dss',
      'cipher:aes128-cbc',
      'cipher:arcfour256',
      'cipher:3des-cbc',
      'mac:hmac-md5-96',
      'mac:hmac-sha1-96',
    ]);
    expect(weak.every((w) => w.reason.length > 0)).toBe(true);
    // Names that only look alike are not weak: rsa-sha2-* signatures, ctr and AEAD ciphers.
    expect(
      weakSshAlgorithms({
        ...offer,
        hostKey: ['rsa-sha2-256', 'ssh-rsa-sha2'],
        ciphers: ['aes256-gcm@openssh.com'],
      }),
    ).toEqual([]);
  });

  it('OpenSSH 9.2p1 is read from the captured banner', () => {
    expect(identify({ port: 22, banner: CAPTURED.ssh })).toMatchObject({
      product: 'OpenSSH',
      version: '9.2p1',
    });
  });

  it('a KEXINIT cut short or lying about its lengths is no offer', () => {
    expect(readSshKexinit(CAPTURED.ssh.subarray(0, 200))).toBeNull();
    const lying = Buffer.from(CAPTURED.ssh);
    const start = lying.indexOf(0x0a) + 1;
    lying.writeUInt32BE(0x7fffffff, start);
    expect(readSshKexinit(lying)).toBeNull();
    expect(readSshKexinit(Buffer.from('no ssh here\n'))).toBeNull();
  });
});

describe('answers built from the protocols’ documentation', () => {
  it('Telnet option negotiation (RFC 854: IAC DO TERMINAL-TYPE, IAC DO TSPEED, …)', () => {
    const bytes = Buffer.from([0xff, 0xfd, 0x18, 0xff, 0xfd, 0x20, 0xff, 0xfd, 0x23, 0xff, 0xfd, 0x27]);
    expect(identify({ port: 23, banner: bytes })).toMatchObject({
      service: 'telnet',
      evidence: 'Telnet negotiation (options 24, 32, 35, 39)',
    });
    expect(identify({ port: 23, banner: Buffer.from([0xff, 0x01, 0x02]) })).toBeNull();
  });

  it('MongoDB OP_MSG reply to buildInfo (opCode 2013, responseTo our request, a version field)', () => {
    const document = bson({
      version: '7.0.14',
      gitVersion: 'ce59cfc6a3c5e5c067dca0d30697edd68d4f5188',
      ok: 1,
    });
    const reply = mongodbCommand({}, 77);
    const header = Buffer.alloc(21);
    header.writeInt32LE(21 + document.length, 0);
    header.writeInt32LE(77, 4);
    header.writeInt32LE(MONGODB_REQUEST_ID, 8);
    header.writeInt32LE(2013, 12);
    const bytes = Buffer.concat([header, document]);
    expect(reply.readInt32LE(12)).toBe(2013);
    expect(identify({ port: 27017, banner: bytes, probe: 'mongodb' })).toMatchObject({
      service: 'mongodb',
      product: 'MongoDB',
      version: '7.0.14',
      cpes: ['cpe:2.3:a:mongodb:mongodb:7.0.14:*:*:*:*:*:*:*'],
    });
    // A reply to someone else's request is not ours to read.
    header.writeInt32LE(5, 8);
    expect(identify({ port: 27017, banner: Buffer.concat([header, document]), probe: 'mongodb' })).toBeNull();
  });

  it('BSON documents round-trip and a lying length is refused', () => {
    const fields = readBson(bson({ a: 'x', b: 7, c: true }));
    expect(Object.fromEntries(fields!)).toEqual({ a: 'x', b: 7, c: true });
    const bad = bson({ a: 'x' });
    bad.writeInt32LE(1000, 0);
    expect(readBson(bad)).toBeNull();
  });

  it('RDP X.224 Connection Confirm with RDP_NEG_RSP selecting TLS ([MS-RDPBCGR] 4.1.2)', () => {
    const bytes = Buffer.from('030000130ed000001234000209080001000000', 'hex');
    expect(identify({ port: 3389, banner: bytes, probe: 'rdp' })).toMatchObject({
      service: 'rdp',
      evidence: 'X.224 connection confirm, selected protocol TLS',
    });
  });

  it('SMB2 NEGOTIATE response choosing 3.0.2 ([MS-SMB2] 2.2.4), and an SMB1 answer', () => {
    const header = Buffer.alloc(64);
    header.write('\xfeSMB', 0, 'latin1');
    header.writeUInt16LE(64, 4);
    const body = Buffer.alloc(65);
    body.writeUInt16LE(65, 0);
    body.writeUInt16LE(1, 2);
    body.writeUInt16LE(0x0302, 4);
    const message = Buffer.concat([header, body]);
    const session = Buffer.alloc(4);
    session.writeUInt32BE(message.length);
    const bytes = Buffer.concat([session, message]);
    expect(smbDialect(bytes)).toBe('3.0.2');
    expect(identify({ port: 445, banner: bytes, probe: 'smb' })).toMatchObject({
      service: 'smb',
      evidence: 'SMB negotiate: dialect 3.0.2',
    });
    expect(smbDialect(Buffer.from('00000023ff534d4272', 'hex'))).toBe('1');
    expect(smbDialect(smbNegotiate().subarray(0, 20))).toBeNull();
  });

  it('LDAP root DSE naming its vendor (389 Directory Server publishes vendorName/vendorVersion)', () => {
    const ber = (tag: number, ...parts: Buffer[]) => {
      const body = Buffer.concat(parts);
      return Buffer.concat([Buffer.from([tag, body.length]), body]);
    };
    const str = (t: string) => ber(0x04, Buffer.from(t));
    const attribute = (name: string, value: string) => ber(0x30, str(name), ber(0x31, str(value)));
    const entry = ber(
      0x30,
      ber(0x02, Buffer.from([1])),
      ber(
        0x64,
        str(''),
        ber(
          0x30,
          attribute('vendorName', '389 Project'),
          attribute('vendorVersion', '389-Directory/2.4.5 B2024.100'),
        ),
      ),
    );
    expect(identify({ port: 389, banner: entry, probe: 'ldap' })).toMatchObject({
      service: 'ldap',
      product: '389 Directory Server',
      evidence: 'LDAP root DSE: 389 Project 389-Directory/2.4.5 B2024.100',
    });
    expect(ldapRootDseSearch()[0]).toBe(0x30);
  });

  it('BIND answers version.bind with its bare version; the release is x.y.z', () => {
    const answer = Buffer.from(CAPTURED.dns);
    const text = '9.18.28-1~deb12u2-Debian';
    const rdata = Buffer.concat([Buffer.from([text.length]), Buffer.from(text)]);
    const start = answer.length - 13; // dnsmasq's TXT: length byte + 12 characters
    const message = Buffer.concat([answer.subarray(2, start - 2), Buffer.from([0, rdata.length]), rdata]);
    const framed = Buffer.concat([Buffer.from([0, message.length]), message]);
    expect(identify({ port: 53, banner: framed, probe: 'dns' })).toMatchObject({
      product: 'BIND',
      version: '9.18.28',
    });
    expect(dnsVersionQuery().readUInt16BE(0)).toBe(dnsVersionQuery().length - 2);
  });
});

describe('mail greetings', () => {
  it.each([
    [
      '* OK [CAPABILITY IMAP4rev1 LITERAL+ SASL-IR LOGIN-REFERRALS ID ENABLE IDLE STARTTLS AUTH=PLAIN] Dovecot (Debian) ready.',
      'imap',
      'Dovecot',
      null,
    ],
    [
      '* OK [CAPABILITY IMAP4rev1 UIDPLUS CHILDREN NAMESPACE] Courier-IMAP ready. Copyright 1998-2018 Double Precision, Inc.',
      'imap',
      'Courier',
      null,
    ],
    [
      '* OK [CAPABILITY IMAP4rev1 STARTTLS] mail.example.org Cyrus IMAP v3.6.1-Debian-3.6.1-4 server ready',
      'imap',
      'Cyrus IMAP',
      '3.6.1',
    ],
    [
      '+OK mail.example.org Cyrus POP3 v3.6.1-Debian-3.6.1-4 server ready <1896.1@mail>',
      'pop3',
      'Cyrus IMAP',
      '3.6.1',
    ],
    ['+OK Hello there.', 'pop3', null, null],
    ['* OK IMAP4rev1 Service Ready', 'imap', null, null],
  ])('%s', (line, service, product, version) => {
    expect(identify({ port: 143, banner: `${line}\r\n` })).toMatchObject({ service, product, version });
  });
});

describe('hostile answers', () => {
  it('never throw and never read past what arrived', () => {
    const junk = [
      Buffer.alloc(0),
      Buffer.from([0x45, 0xff, 0xff, 0xff, 0xff, 0x53]),
      Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0]),
      Buffer.from([0x30, 0x84, 0xff, 0xff, 0xff, 0xff]),
      Buffer.from([0x00, 0xff, 0x52, 0x50, 0x84, 0x80, 0, 1, 0xff, 0xff]),
      Buffer.alloc(64, 0xff),
    ];
    for (const banner of junk)
      for (const probe of [
        'postgresql',
        'mongodb',
        'rdp',
        'smb',
        'ldap',
        'dns',
        'memcached',
        'redis',
        'http',
      ] as const)
        expect(() => identify({ port: 1, banner, probe })).not.toThrow();
  });
});
