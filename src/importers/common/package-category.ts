import { parsePurl } from '../../parsing/purl.js';
import type { SoftwareRecord } from '../types.js';

/** Package URL types of operating-system package managers. */
const OS_PACKAGE_TYPES = new Set(['deb', 'rpm', 'apk', 'alpm', 'ebuild', 'opkg', 'qpkg']);

/** OsPackage for a distribution's package manager (deb, rpm, apk…), Library for anything else. */
export function softwareCategoryOfPurl(purl: string | undefined): NonNullable<SoftwareRecord['category']> {
  const type = parsePurl(purl)?.type;
  return type && OS_PACKAGE_TYPES.has(type) ? 'OsPackage' : 'Library';
}
