import { cweId } from '../../parsing/ids.js';
import { unique } from '../common/report-values.js';

/** Ids other than CVEs that Nessus attaches to a plugin, split into CWE ids and aliases. */
export interface OtherIds {
  cweIds: string[];
  aliases: string[];
}

/**
 * Reads Nessus cross references — xref elements ("CWE:79", "MSFT:MS17-010", "IAVA:2020-A-0510-S"),
 * bid elements and Tenable's "CVE=[…], CWE=[200], BUGTRAQ=[32319]" lists — into CWE ids
 * ("CWE-79") and aliases kept as "TYPE:ID" ("MSFT:MS17-010", "BID:32319"). CVEs are read
 * elsewhere and left out here.
 */
export function otherIds(xrefs: readonly string[], bids: readonly string[] = []): OtherIds {
  const cweIds: (string | undefined)[] = [];
  const aliases: string[] = bids.map((bid) => `BID:${bid.trim()}`);
  for (const [type, id] of xrefs.flatMap(xrefPairs)) {
    if (type === 'CWE') cweIds.push(cweId(id));
    else if (type === 'BUGTRAQ' || type === 'BID') aliases.push(`BID:${id}`);
    else if (type !== 'CVE') aliases.push(`${type}:${id}`);
  }
  return { cweIds: unique(cweIds), aliases: unique(aliases) };
}

/** "CWE:79" gives [["CWE","79"]]; "CWE=[192, 330], RHSA=[2022:7002]" gives one pair per id. */
function xrefPairs(text: string): [string, string][] {
  const listed = [...text.matchAll(/([A-Za-z][\w-]*)=\[([^\]]*)\]/g)];
  if (listed.length > 0) {
    return listed.flatMap((m) =>
      m[2]!
        .split(',')
        .map((id) => id.trim())
        .filter(Boolean)
        .map((id): [string, string] => [m[1]!.toUpperCase(), id]),
    );
  }
  // "MSFT:MS17-010" in .nessus files, "MSFT #MS17-010" in Tenable.sc exports.
  const pair = text.trim().match(/^([A-Za-z][\w-]*)\s*(?::|\s#)\s*(\S.*)$/);
  return pair ? [[pair[1]!.toUpperCase(), pair[2]!.trim()]] : [];
}

/** The CWE ids of Tenable's "definition.cwe" column ("192, 330, 400") or of cwe elements. */
export function cweIdsOf(values: readonly string[]): string[] {
  return unique(values.flatMap((value) => value.split(/[\s,]+/)).map(cweId));
}

/** The version a plugin's output names as the fix ("Fixed version : 7.3.24"). */
export function fixedVersionIn(output: string | undefined): string | undefined {
  const match = output?.match(/^\s*Fixed version\s*:\s*(\S.*?)\s*$/im);
  return match?.[1];
}

/**
 * A service name as Nessus writes it in `svc_name`: "www" is its name for HTTP, a trailing "?"
 * marks a guess, "general" means no service.
 */
export function serviceName(svcName: string | undefined): string | undefined {
  const name = svcName?.trim().replace(/\?+$/, '').toLowerCase();
  if (!name || name === 'general' || name === 'unknown') return undefined;
  return name === 'www' ? 'http' : name;
}
