import { asText, type JsonObject } from '../../parsing/json-fields.js';
import {
  hostAsset,
  portLocation,
  portNumber,
  splitHostPort,
  webTarget,
  webUrl,
} from '../common/network-target.js';
import type { AssetRef, LocationRef } from '../types.js';

export interface Target {
  asset: AssetRef;
  location: LocationRef;
}

/**
 * Where a Nuclei result was found, from the fields Nuclei writes (names differ by version:
 * `matched-at`/`matched`, `template-id`/`templateID`):
 * - an http(s) `matched-at` → the WebApplication of its origin, at a Url location;
 * - a "host:port" or bare host `matched-at` (network, tcp, ssl, dns, javascript templates) → a
 *   Host (with the resolved `ip`) at a Port location, or no location without a port;
 * - no `matched-at`: the same rules on `url` (Nuclei 3 writes some as "/http://host/"), then on
 *   `host`, then the bare `ip`.
 * Undefined when the result names no target at all.
 */
export function targetOf(result: JsonObject, matcher: string | undefined): Target | undefined {
  const ip = asText(result.ip);
  const port = portNumber(result.port);
  const candidates = [
    asText(result['matched-at']) ?? asText(result.matched),
    asText(result.url)?.replace(/^\/+(?=https?:\/\/)/i, ''),
    asText(result.host),
  ];
  for (const candidate of candidates) {
    const target = candidate === undefined ? undefined : readTarget(candidate, ip, port, matcher);
    if (target) return target;
  }
  const asset = ip ? hostAsset(ip) : undefined;
  return asset ? { asset, location: port ? portLocation(port) : { kind: 'None' } } : undefined;
}

function readTarget(
  text: string,
  ip: string | undefined,
  port: number | undefined,
  matcher: string | undefined,
) {
  const url = webUrl(text);
  // Different matchers of one template (each missing header, each detected technology) are
  // different findings at the same URL: the matcher name keeps them apart as the parameter.
  if (url) return webTarget(url, text, matcher);
  const hostPort = splitHostPort(text.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/\/.*$/, ''));
  const asset = hostPort ? hostAsset(hostPort.host, ip) : undefined;
  if (!asset) return undefined;
  const knownPort = hostPort?.port ?? port;
  const location: LocationRef = knownPort ? portLocation(knownPort) : { kind: 'None' };
  return { asset, location };
}
