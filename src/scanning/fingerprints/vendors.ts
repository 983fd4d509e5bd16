// The vendor alias table: the NVD vendor:product pairs under which one product has been published,
// so that a service seen by a scanner matches every CVE that names it, whatever the vendor of the
// day was (nginx: igor_sysoev, nginx, f5).

import { formatCpe, makeCpe, NA, toCpeValue } from '../../intel/cpe/cpe.js';

export interface VendorProduct {
  vendor: string;
  product: string;
}

/** Products by the display name identify() reports, each with every NVD vendor:product naming it. */
export const VENDOR_ALIASES: Readonly<Record<string, readonly VendorProduct[]>> = {
  nginx: [
    { vendor: 'igor_sysoev', product: 'nginx' },
    { vendor: 'nginx', product: 'nginx' },
    { vendor: 'f5', product: 'nginx' },
    { vendor: 'f5', product: 'nginx_open_source' },
  ],
  OpenSSH: [{ vendor: 'openbsd', product: 'openssh' }],
  Dropbear: [{ vendor: 'dropbear_ssh_project', product: 'dropbear_ssh' }],
  'Apache httpd': [{ vendor: 'apache', product: 'http_server' }],
  'Microsoft IIS': [{ vendor: 'microsoft', product: 'internet_information_services' }],
  lighttpd: [{ vendor: 'lighttpd', product: 'lighttpd' }],
  Caddy: [{ vendor: 'caddyserver', product: 'caddy' }],
  OpenResty: [{ vendor: 'openresty', product: 'openresty' }],
  vsftpd: [{ vendor: 'beasts', product: 'vsftpd' }],
  ProFTPD: [{ vendor: 'proftpd', product: 'proftpd' }],
  'Pure-FTPd': [{ vendor: 'pureftpd', product: 'pure-ftpd' }],
  Postfix: [{ vendor: 'postfix', product: 'postfix' }],
  Exim: [{ vendor: 'exim', product: 'exim' }],
  Sendmail: [{ vendor: 'sendmail', product: 'sendmail' }],
  Dovecot: [{ vendor: 'dovecot', product: 'dovecot' }],
  Redis: [
    { vendor: 'redis', product: 'redis' },
    { vendor: 'redislabs', product: 'redis' },
  ],
  MariaDB: [{ vendor: 'mariadb', product: 'mariadb' }],
  'Cyrus IMAP': [
    { vendor: 'cmu', product: 'cyrus_imap_server' },
    { vendor: 'cyrus', product: 'imap' },
  ],
  PostgreSQL: [{ vendor: 'postgresql', product: 'postgresql' }],
  MongoDB: [{ vendor: 'mongodb', product: 'mongodb' }],
  memcached: [{ vendor: 'memcached', product: 'memcached' }],
  OpenLDAP: [{ vendor: 'openldap', product: 'openldap' }],
  BIND: [{ vendor: 'isc', product: 'bind' }],
  dnsmasq: [{ vendor: 'thekelleys', product: 'dnsmasq' }],
  Unbound: [{ vendor: 'nlnetlabs', product: 'unbound' }],
  'PowerDNS Recursor': [{ vendor: 'powerdns', product: 'recursor' }],
  'PowerDNS Authoritative Server': [{ vendor: 'powerdns', product: 'authoritative_server' }],
  'Knot DNS': [{ vendor: 'nic', product: 'knot_dns' }],
  MySQL: [
    { vendor: 'oracle', product: 'mysql' },
    { vendor: 'mysql', product: 'mysql' },
  ],
};

/** A version split the way NVD writes it: `version` and `update` attribute values (not yet escaped). */
export interface NvdVersion {
  version: string;
  update: string | null;
}

/**
 * NVD's way of writing a product's version. OpenSSH portable releases are `8.9p1` upstream, but NVD
 * files them as version `8.9` with update `p1` (`cpe:2.3:a:openbsd:openssh:8.9:p1:…`); a name with
 * version `8.9p1` would match none of its CVEs. Every other product keeps its version whole.
 */
export function nvdVersion(product: string, version: string): NvdVersion {
  if (product === 'OpenSSH') {
    const portable = /^(\d+(?:\.\d+)*)(p\d+)$/i.exec(version);
    if (portable) return { version: portable[1]!, update: portable[2]!.toLowerCase() };
  }
  return { version, update: null };
}

/**
 * The CPE 2.3 formatted names of a product, one per vendor alias: `cpe:2.3:a:<vendor>:<product>:
 * <version>:<update>:*:*:*:*:*:*`, the version escaped per CPE 2.3 (`1.0:beta` → `1.0\:beta`).
 * Version ANY when unknown. An empty list for a product not in the table.
 */
export function cpesFor(product: string, version: string | null): string[] {
  const aliases = VENDOR_ALIASES[product];
  if (!aliases) return [];
  const nvd = version === null ? null : nvdVersion(product, version);
  return aliases.map((alias) =>
    formatCpe(
      makeCpe({
        part: 'a',
        vendor: alias.vendor,
        product: alias.product,
        version: nvd ? literalValue(nvd.version) : '*',
        update: nvd?.update ? literalValue(nvd.update) : '*',
      }),
    ),
  );
}

/** A literal attribute value: a version that is exactly `-` or `*` is text here, not NA or ANY. */
function literalValue(text: string): string {
  const value = toCpeValue(text);
  if (value === NA) return '\\-';
  if (value === '*') return '\\*';
  return value;
}
