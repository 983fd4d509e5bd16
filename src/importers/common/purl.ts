import type { SoftwareRecord } from '../types.js';

/** The parts of a package URL (https://github.com/package-url/purl-spec) the importers use. */
export interface PackageUrl {
  type: string;
  namespace?: string;
  name: string;
  version?: string;
}

function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** Reads "pkg:type/namespace/name@version?qualifiers#subpath"; undefined when it is not one. */
export function parsePurl(purl: string | undefined): PackageUrl | undefined {
  const match = /^pkg:\/*([a-zA-Z][a-zA-Z0-9.+-]*)\/([^?#]+)/.exec(purl?.trim() ?? '');
  if (!match) return undefined;
  const path = match[2]!.replace(/\/+$/, '');
  const at = path.lastIndexOf('@');
  const [namePath, version] = at > 0 ? [path.slice(0, at), decode(path.slice(at + 1))] : [path, undefined];
  const segments = namePath.split('/').filter(Boolean).map(decode);
  const name = segments.pop();
  if (!name) return undefined;
  return {
    type: match[1]!.toLowerCase(),
    ...(segments.length > 0 ? { namespace: segments.join('/') } : {}),
    name,
    ...(version ? { version } : {}),
  };
}

/** Package URL types of operating-system package managers. */
const OS_PACKAGE_TYPES = new Set(['deb', 'rpm', 'apk', 'alpm', 'ebuild', 'opkg', 'qpkg']);

/** OsPackage for a distribution's package manager (deb, rpm, apk…), Library for anything else. */
export function softwareCategoryOfPurl(purl: string | undefined): NonNullable<SoftwareRecord['category']> {
  const type = parsePurl(purl)?.type;
  return type && OS_PACKAGE_TYPES.has(type) ? 'OsPackage' : 'Library';
}
