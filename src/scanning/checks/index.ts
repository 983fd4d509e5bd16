// The catalogue of Rampart's own checks: one definition per id, shared by the nodes (which report
// ids) and the server (which makes findings from definitions).

import { createHash } from 'node:crypto';
import { SYSTEM_CHECKS } from './system.js';
import { TLS_CHECKS } from './tls.js';
import type { CheckDefinition } from './types.js';
import { WEB_CHECKS } from './web.js';

export type { CheckDefinition, CheckSeverity } from './types.js';

export const CHECKS: readonly CheckDefinition[] = [...TLS_CHECKS, ...SYSTEM_CHECKS, ...WEB_CHECKS];

const BY_ID = new Map(CHECKS.map((c) => [c.id, c]));

/** Whose rule ids the catalogue's are: one vulnerability per check, whichever scan kind found it. */
export const CHECK_RULE_SOURCE = 'Rampart';

const TLS_IDS = new Set(TLS_CHECKS.map((c) => c.id));

/** The TLS checks: issues of an endpoint (address and port), found by system and web scans alike. */
export const TLS_CHECK_IDS: readonly string[] = [...TLS_IDS];

export function isTlsCheck(checkId: string): boolean {
  return TLS_IDS.has(checkId);
}

export function checkById(id: string): CheckDefinition | undefined {
  return BY_ID.get(id);
}

// RFC 4122 name-based UUID (version 5) in a namespace of Rampart's own.
const NAMESPACE = Buffer.from('5f0b2c1e7a3d4e6b9c8d0a1b2c3d4e5f', 'hex');

/**
 * The check's PluginGuidId, as the original service's clients know checks: a version-5 UUID of
 * its id, so the same check has the same id in every organisation and every release.
 */
export function checkGuid(checkId: string): string {
  const hash = createHash('sha1').update(NAMESPACE).update(checkId).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const BY_GUID = new Map(CHECKS.map((c) => [checkGuid(c.id), c]));

/** The check a PluginGuidId names, if it names one. */
export function checkByGuid(guid: string): CheckDefinition | undefined {
  return BY_GUID.get(guid.toLowerCase());
}
