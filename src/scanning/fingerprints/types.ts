// What a fingerprint is made from and what it says. Plain data, so that a node can send it as JSON.

import type { ProbeName } from './probes.js';

/** What a probe saw on one port: the first bytes the service sent, and/or an HTTP response's headers. */
export interface FingerprintInput {
  port: number;
  banner?: string | Buffer;
  /** Header names in any case; values as received. */
  httpHeaders?: Record<string, string>;
  /** The request the banner answers (probes.ts); absent when the service spoke first. */
  probe?: ProbeName;
}

/** A service identified from a banner, with its CPE 2.3 names (one per NVD vendor alias). */
export interface ServiceGuess {
  /** The protocol: `ssh`, `http`, `https`, `ftp`, `smtp`, `imap`, `pop3`, `redis`, `mysql`,
   * `telnet`, `postgresql`, `mongodb`, `memcached`, `rdp`, `smb`, `ldap`, `dns`. */
  service: string;
  /** The product's display name (`OpenSSH`, `nginx`, …), or null when only the protocol is known. */
  product: string | null;
  /** The version as the banner states it (`8.9p1`), or null. */
  version: string | null;
  /** CPE 2.3 formatted strings, one per vendor alias; empty when the product is unknown. */
  cpes: string[];
  /** 0–1: how sure the guess is (protocol only < product < product and version). */
  confidence: number;
  /** The matched text, control characters replaced, cut to 200 characters. */
  evidence: string;
}
