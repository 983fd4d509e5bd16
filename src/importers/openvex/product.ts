import { type PackageUrl, parsePurl, purlQualifiers } from '../../parsing/purl.js';
import type { AssetRef, LocationRef } from '../types.js';

/**
 * Products as VEX and advisory documents name them — a package URL, or a plain "name@version" —
 * read into Rampart's asset and package-location shapes. Shared by the OpenVEX, CSAF and SPDX
 * importers.
 */

/** Package URL types whose product is a container image rather than a package in one. */
const IMAGE_PURL_TYPES = new Set(['oci', 'docker']);

/**
 * Ecosystems whose package names include the namespace ("@babel/core", "github.com/x/y/v4",
 * "vendor/pkg"): scanners (Grype, Trivy) locate findings by that full name, so VEX findings on
 * the same package land on the same location.
 */
const NAMESPACED_TYPES = new Set(['npm', 'golang', 'composer', 'github', 'swift']);

function packageName(p: PackageUrl): string {
  return p.namespace && NAMESPACED_TYPES.has(p.type) ? `${p.namespace}/${p.name}` : p.name;
}

/** "registry/name:tag" or "registry/name@sha256:…" for an oci or docker package URL. */
export function imageOfPurl(purl: string | undefined): string | undefined {
  const p = parsePurl(purl);
  if (!p || !IMAGE_PURL_TYPES.has(p.type)) return undefined;
  const q = purlQualifiers(purl!);
  const path = p.namespace ? `${p.namespace}/${p.name}` : p.name;
  // oci: repository_url is the whole repository; docker: it is the registry the path is in.
  const base =
    p.type === 'oci' ? (q.repository_url ?? path) : q.repository_url ? `${q.repository_url}/${path}` : path;
  if (q.tag) return `${base}:${q.tag}`;
  if (!p.version) return base;
  return p.version.includes(':') ? `${base}@${p.version}` : `${base}:${p.version}`;
}

/**
 * The package a product id names: a package URL's name (with its namespace where the ecosystem
 * names packages so) and version; anything else is read as "name@version" after dropping a
 * "?…" or "#…" suffix, or taken whole as the name.
 */
export function packageOf(id: string): { name: string; version?: string } {
  const purl = parsePurl(id);
  if (purl) return { name: packageName(purl), ...(purl.version ? { version: purl.version } : {}) };
  const bare = id.split(/[?#]/, 1)[0]!.trim() || id.trim();
  const at = bare.lastIndexOf('@');
  if (at <= 0 || at === bare.length - 1) return { name: bare };
  return { name: bare.slice(0, at), version: bare.slice(at + 1) };
}

/** The Package location of a product id. */
export function packageLocation(id: string): LocationRef {
  const { name, version } = packageOf(id);
  return { kind: 'Package', packageName: name, ...(version ? { packageVersion: version } : {}) };
}

/**
 * The asset a product is, when the product is what was shipped rather than a package in it: an
 * oci/docker package URL is its image; anything else a project named after the package (without
 * its version, so every release of the product is one asset).
 */
export function productAsset(id: string, purl?: string): AssetRef {
  const image = imageOfPurl(purl ?? id);
  if (image) return { kind: 'ContainerImage', image };
  const p = parsePurl(purl ?? id);
  if (p) return { kind: 'CodeRepository', repository: p.namespace ? `${p.namespace}/${p.name}` : p.name };
  return { kind: 'CodeRepository', repository: packageOf(id).name };
}
