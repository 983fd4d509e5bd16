import { describe, expect, it } from 'vitest';
import { identify } from '../../../src/scanning/fingerprints/index.js';
import { readMysqlGreeting } from '../../../src/scanning/fingerprints/mysql.js';

/** A packet: 3-byte little-endian payload length, sequence id 0, payload. */
function packet(payload: Buffer, declaredLength = payload.length): Buffer {
  const header = Buffer.from([
    declaredLength & 0xff,
    (declaredLength >> 8) & 0xff,
    (declaredLength >> 16) & 0xff,
    0,
  ]);
  return Buffer.concat([header, payload]);
}

/** The protocol 10 handshake as MariaDB 10.11 (Debian 12) sends it to a new connection. */
function handshake(serverVersion: string): Buffer {
  return packet(
    Buffer.concat([
      Buffer.from([0x0a]),
      Buffer.from(`${serverVersion}\0`, 'latin1'),
      Buffer.from([0x1f, 0x00, 0x00, 0x00]), // connection id
      Buffer.from('3a!Xq#Vn', 'latin1'), // auth plugin data, part 1
      Buffer.from([0x00]), // filler
      Buffer.from([0xfe, 0xf7]), // capability flags, lower
      Buffer.from([0x2d]), // utf8mb4_general_ci
      Buffer.from([0x02, 0x00]), // status: autocommit
      Buffer.from([0xff, 0x81]), // capability flags, upper
      Buffer.from([0x15]), // auth plugin data length
      Buffer.alloc(6), // reserved
      Buffer.from([0x1d, 0x00, 0x00, 0x00]), // MariaDB extended capabilities
      Buffer.from('Kz7pQ[3e)w9H\0', 'latin1'), // auth plugin data, part 2
      Buffer.from('mysql_native_password\0', 'latin1'),
    ]),
  );
}

describe('MySQL and MariaDB greetings', () => {
  it('reads MariaDB 10.11 behind its 5.5.5- replication prefix', () => {
    const found = identify({ port: 3306, banner: handshake('5.5.5-10.11.6-MariaDB-0+deb12u1') });
    expect(found).toEqual({
      service: 'mysql',
      product: 'MariaDB',
      version: '10.11.6',
      cpes: ['cpe:2.3:a:mariadb:mariadb:10.11.6:*:*:*:*:*:*:*'],
      confidence: 0.95,
      evidence: '5.5.5-10.11.6-MariaDB-0+deb12u1',
    });
  });

  it('reads MariaDB 11 without the prefix, and MySQL under both its NVD vendors', () => {
    expect(identify({ port: 3306, banner: handshake('11.4.2-MariaDB') })?.version).toBe('11.4.2');
    const mysql = identify({ port: 3307, banner: handshake('8.0.36-0ubuntu0.22.04.1') });
    expect([mysql?.product, mysql?.version]).toEqual(['MySQL', '8.0.36']);
    expect(mysql?.cpes).toEqual([
      'cpe:2.3:a:oracle:mysql:8.0.36:*:*:*:*:*:*:*',
      'cpe:2.3:a:mysql:mysql:8.0.36:*:*:*:*:*:*:*',
    ]);
  });

  it('reads the error packet a server sends a host it refuses', () => {
    const message = "Host '10.0.0.7' is not allowed to connect to this MariaDB server";
    const refusal = packet(Buffer.concat([Buffer.from([0xff, 0x6a, 0x04]), Buffer.from(message)]));
    expect(identify({ port: 3306, banner: refusal })).toMatchObject({
      service: 'mysql',
      product: 'MariaDB',
      version: null,
      evidence: message,
    });
  });

  it('reads a handshake whose length field points beyond the bytes only within the bytes', () => {
    const full = handshake('5.5.5-10.11.6-MariaDB-0+deb12u1');
    const lying = Buffer.from(full);
    lying.writeUIntLE(0xffffff, 0, 3);
    expect(identify({ port: 3306, banner: lying })?.version).toBe('10.11.6');
  });

  it('refuses truncated, short-declared and malformed handshakes', () => {
    const full = handshake('5.5.5-10.11.6-MariaDB-0+deb12u1');
    // Cut at every length: never a throw, and nothing before the version's NUL and what follows it.
    const enough = 4 + 1 + 32 + 13;
    for (let length = 0; length < enough; length++) {
      expect(readMysqlGreeting(full.subarray(0, length))).toBeNull();
      expect(() => identify({ port: 3306, banner: full.subarray(0, length) })).not.toThrow();
    }
    expect(readMysqlGreeting(full.subarray(0, enough))).toMatchObject({ kind: 'handshake' });
    // A length field shorter than the version: the version's NUL lies outside the payload.
    const short = Buffer.from(full);
    short.writeUIntLE(10, 0, 3);
    expect(readMysqlGreeting(short)).toBeNull();
    // No NUL at all, a version of control characters, a non-zero sequence id, an empty payload.
    expect(
      readMysqlGreeting(packet(Buffer.concat([Buffer.from([0x0a]), Buffer.alloc(200, 0x41)]))),
    ).toBeNull();
    expect(readMysqlGreeting(handshake('10.11\u0007\u001b[2J'))).toBeNull();
    const sequence = Buffer.from(full);
    sequence[3] = 1;
    expect(readMysqlGreeting(sequence)).toBeNull();
    expect(readMysqlGreeting(packet(Buffer.alloc(0)))).toBeNull();
    expect(readMysqlGreeting(handshake(`5.${'1'.repeat(200)}`))).toBeNull();
  });

  it('refuses an error packet with a code no server sends', () => {
    expect(readMysqlGreeting(packet(Buffer.from([0xff, 0x01, 0x00, 0x41])))).toBeNull();
    expect(readMysqlGreeting(packet(Buffer.from([0xff, 0x6a])))).toBeNull();
  });
});
