/**
 * What a service banner says about a distribution build: the product and upstream version, and,
 * when the banner names Ubuntu or Debian, the distribution's source package and (when the banner
 * shows it) the full dpkg version of that package.
 *
 * - OpenSSH on Debian and Ubuntu appends `<Distribution>-<Debian revision>` to its version
 *   (`SSH-2.0-OpenSSH_8.9p1 Ubuntu-3ubuntu0.10`): upstream `8.9p1` and revision `3ubuntu0.10` give
 *   the whole package version. The banner never shows the epoch: it comes from `SOURCE_PACKAGES`
 *   below, the epoch the distribution's source package has carried for years (Debian's and
 *   Ubuntu's openssh are `1:…`, as every version in Ubuntu's OSV records for openssh shows). An
 *   admin can remove the suffix (`DebianBanner no`); a bare `OpenSSH_8.9p1` names no distribution.
 * - Apache httpd and nginx say only `(Ubuntu)` / `(Debian)` after the upstream version
 *   (`Server: Apache/2.4.52 (Ubuntu)`): the revision, and so the patch level, is not visible and
 *   the build is not decidable.
 */
import { parseDpkgVersion } from '../osv/dpkg.js';

export type Distribution = 'Ubuntu' | 'Debian';

export interface DistroBuild {
  /** `OpenSSH`, `Apache`, `nginx`. */
  product: string;
  /** The upstream version the banner shows (`8.9p1`, `2.4.52`). */
  upstreamVersion: string;
  distribution: Distribution | null;
  /** The distribution's source package (`openssh`, `apache2`, `nginx`). */
  packageName: string;
  /** The full dpkg version when the banner shows the revision (`1:8.9p1-3ubuntu0.10`), else null. */
  packageVersion: string | null;
  /** Whether the distribution's advisories can decide for this build (package version known). */
  decidable: boolean;
}

interface SourcePackage {
  product: string;
  packageName: string;
  /** The epoch of the Debian/Ubuntu source package's versions, which banners leave out. */
  epoch: number;
}

const SOURCE_PACKAGES: Record<string, SourcePackage> = {
  openssh: { product: 'OpenSSH', packageName: 'openssh', epoch: 1 },
  apache: { product: 'Apache', packageName: 'apache2', epoch: 0 },
  nginx: { product: 'nginx', packageName: 'nginx', epoch: 0 },
};

const SSH_BANNER = /^SSH-(?:2\.0|1\.99)-OpenSSH_([0-9][A-Za-z0-9.+~]*)(?:[ \t]+(.*))?$/;
const SSH_DISTRO_COMMENT = /^(Ubuntu|Debian)-(\S+)/;
const HTTP_SERVER = /^(?:Server:\s*)?(Apache|nginx)\/([0-9][A-Za-z0-9.+~-]*)(?:\s+\(([^)]*)\))?/i;
const DISTRIBUTIONS: Record<string, Distribution> = { ubuntu: 'Ubuntu', debian: 'Debian' };

/** The build a banner (an SSH identification line or an HTTP `Server` header) describes, or null. */
export function parseDistroBanner(banner: string): DistroBuild | null {
  if (typeof banner !== 'string') return null;
  const line = banner.trim();
  return sshBuild(line) ?? httpBuild(line);
}

function sshBuild(line: string): DistroBuild | null {
  const match = SSH_BANNER.exec(line);
  if (!match) return null;
  const source = SOURCE_PACKAGES.openssh!;
  const upstreamVersion = match[1]!;
  const comment = SSH_DISTRO_COMMENT.exec(match[2]?.trim() ?? '');
  if (!comment) return undecided(source, upstreamVersion, null);
  const distribution = DISTRIBUTIONS[comment[1]!.toLowerCase()]!;
  const packageVersion = dpkgVersionOf(source.epoch, upstreamVersion, comment[2]!);
  if (!packageVersion) return undecided(source, upstreamVersion, distribution);
  return { ...identity(source, upstreamVersion, distribution), packageVersion, decidable: true };
}

function httpBuild(line: string): DistroBuild | null {
  const match = HTTP_SERVER.exec(line);
  if (!match) return null;
  const source = SOURCE_PACKAGES[match[1]!.toLowerCase()]!;
  const distribution = DISTRIBUTIONS[(match[3] ?? '').trim().toLowerCase()] ?? null;
  return undecided(source, match[2]!, distribution);
}

function identity(source: SourcePackage, upstreamVersion: string, distribution: Distribution | null) {
  return { product: source.product, upstreamVersion, distribution, packageName: source.packageName };
}

function undecided(
  source: SourcePackage,
  upstreamVersion: string,
  distribution: Distribution | null,
): DistroBuild {
  return { ...identity(source, upstreamVersion, distribution), packageVersion: null, decidable: false };
}

/** `epoch:upstream-revision`, or null when dpkg would not accept it. */
function dpkgVersionOf(epoch: number, upstream: string, revision: string): string | null {
  const version = `${epoch > 0 ? `${epoch}:` : ''}${upstream}-${revision}`;
  try {
    parseDpkgVersion(version);
    return version;
  } catch {
    return null;
  }
}
