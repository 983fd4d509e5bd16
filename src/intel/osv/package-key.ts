/**
 * Package identity across feeds and inventories: the OSV ecosystem's usual spelling and each
 * ecosystem's own rule for which names are the same package.
 *
 * - PyPI: PEP 503 — lowercase, runs of `-`, `_`, `.` become one `-` (`Flask_SQLAlchemy` = `flask-sqlalchemy`).
 * - NuGet, Packagist, crates.io, Hex, Pub: case-insensitive registries, lowercased.
 * - npm (scoped names included), Maven (`group:artifact`), Go, RubyGems and the rest: kept as given
 *   (trimmed); npm names are case-sensitive and `@scope/name` stays whole.
 */

const ECOSYSTEMS = new Map(
  [
    'npm',
    'PyPI',
    'Maven',
    'Go',
    'RubyGems',
    'crates.io',
    'NuGet',
    'Packagist',
    'Pub',
    'Hex',
    'Hackage',
    'CRAN',
    'SwiftURL',
    'Debian',
    'Ubuntu',
    'Alpine',
    'Rocky Linux',
    'AlmaLinux',
    'Red Hat',
    'SUSE',
    'openSUSE',
    'Photon OS',
    'Wolfi',
    'Chainguard',
    'Bitnami',
    'GitHub Actions',
    'Linux',
    'Android',
    'OSS-Fuzz',
  ].map((name) => [name.toLowerCase(), name]),
);

const LOWERCASE_NAMES = new Set(['NuGet', 'Packagist', 'crates.io', 'Hex', 'Pub']);

/** The ecosystem without its release suffix (`Debian:11` → `Debian`), in OSV's spelling. */
export function ecosystemBase(ecosystem: string): string {
  const base = String(ecosystem ?? '')
    .split(':')[0]!
    .trim();
  return ECOSYSTEMS.get(base.toLowerCase()) ?? base;
}

export function normalizePackageName(ecosystem: string, name: string): string {
  const trimmed = String(name ?? '').trim();
  const base = ecosystemBase(ecosystem);
  if (base === 'PyPI') return trimmed.toLowerCase().replace(/[-_.]+/g, '-');
  if (LOWERCASE_NAMES.has(base)) return trimmed.toLowerCase();
  return trimmed;
}

/** `ecosystem:name`, both normalised: the key advisories and inventories meet on. */
export function packageKey(ecosystem: string, name: string): string {
  return `${ecosystemBase(ecosystem)}:${normalizePackageName(ecosystem, name)}`;
}
