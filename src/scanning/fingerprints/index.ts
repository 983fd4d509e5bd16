/**
 * Service fingerprints: what a banner or an HTTP response says about the service behind a port —
 * protocol, product, version, and the product's CPE 2.3 names under every NVD vendor alias.
 * Pure functions, no network: the probes that collect banners live elsewhere.
 */

import { dns, ldap, memcached, mongodb, postgresql, rdp, smb, telnet } from './binary.js';
import type { ProbeName } from './probes.js';
import { greeting220, http, mailbox, mysql, redis, type Seen, ssh } from './protocols.js';
import { bannerLines, bannerText } from './text.js';
import type { FingerprintInput, ServiceGuess } from './types.js';

export {
  postgresSslAnswer,
  readBson,
  readDnsVersion,
  readLdapEntry,
  readMongodbReply,
  readPostgresError,
  smbDialect,
} from './binary.js';
export * from './probes.js';
export { productToken } from './protocols.js';
export { MAX_BANNER_BYTES, printable } from './text.js';

export type { FingerprintInput, ServiceGuess } from './types.js';
export { cpesFor, type NvdVersion, nvdVersion, VENDOR_ALIASES, type VendorProduct } from './vendors.js';

/** Recognisers in order: the binary greeting first (its bytes may look like any text), HTTP last. */
const RECOGNISERS: readonly ((seen: Seen) => ServiceGuess | null)[] = [
  mysql,
  (seen) => telnet(seen.bytes),
  ssh,
  redis,
  greeting220,
  mailbox,
];

/** Recognisers of the answers to our own requests: the probe says which protocol to read. */
const ANSWERS: Readonly<Record<ProbeName, (seen: Seen) => ServiceGuess | null>> = {
  http: (seen) => http(seen, undefined),
  redis,
  memcached: (seen) => memcached(seen.bytes.toString('latin1')),
  postgresql: (seen) => postgresql(seen.bytes),
  mongodb: (seen) => mongodb(seen.bytes),
  rdp: (seen) => rdp(seen.bytes),
  smb: (seen) => smb(seen.bytes),
  ldap: (seen) => ldap(seen.bytes),
  dns: (seen) => dns(seen.bytes),
};

/**
 * Identifies the service from what it sent; null when nothing is recognised. Never throws: banners
 * are read only to a bounded length, and the result's texts are bounded and printable.
 */
export function identify(input: FingerprintInput): ServiceGuess | null {
  try {
    return identifyUnchecked(input);
  } catch {
    // A recogniser bug must not fail a scan: an unreadable banner is an unknown service.
    return null;
  }
}

function identifyUnchecked(input: FingerprintInput): ServiceGuess | null {
  const text = input.banner === undefined ? '' : bannerText(input.banner);
  const bytes = Buffer.isBuffer(input.banner)
    ? input.banner.subarray(0, text.length)
    : Buffer.from(text, 'latin1');
  const seen: Seen = { port: input.port, lines: bannerLines(text), bytes };
  if (input.httpHeaders) return http(seen, input.httpHeaders);
  if (input.probe) {
    const answer = ANSWERS[input.probe](seen);
    if (answer) return answer;
  }
  for (const recognise of RECOGNISERS) {
    const found = recognise(seen);
    if (found) return found;
  }
  return http(seen, undefined);
}

export {
  readSshKexinit,
  type SshAlgorithmCategory,
  type SshAlgorithms,
  type WeakSshAlgorithm,
  weakSshAlgorithms,
} from './ssh-kex.js';
