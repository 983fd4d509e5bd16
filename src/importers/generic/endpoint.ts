import { asObject, asText, type JsonObject } from '../../parsing/json-fields.js';
import {
  hostAsset,
  portLocation,
  portNumber,
  splitHostPort,
  webTarget,
  webUrl,
} from '../common/network-target.js';
import type { AssetRef, LocationRef } from '../types.js';

export interface EndpointTarget {
  asset: AssetRef;
  /** Url or Port; None when the endpoint is a bare host. */
  location: LocationRef;
  /** The endpoint had a path but no scheme: it was read as a host and the path left out. */
  droppedPath?: string;
}

/**
 * An endpoint as the generic format gives it — a URL or "host[:port][/path]" text (JSON
 * `endpoints` items, the CSV `Url` column), or DefectDojo's object `{ protocol, host, port,
 * path, query, fragment }`:
 * - http or https → the WebApplication of the origin, at a Url location (with `parameter`);
 * - another scheme or none → a Host (IP address or name), at a Port location when a port is
 *   given (UDP when the protocol says so). Without a scheme a path cannot become a URL (http or
 *   https?), so it is left out and reported.
 */
export function endpointTarget(endpoint: unknown, parameter?: string): EndpointTarget | undefined {
  const text = asText(endpoint);
  if (text) return textTarget(text, parameter);
  const object = asObject(endpoint);
  return object ? objectTarget(object, parameter) : undefined;
}

function textTarget(text: string, parameter?: string): EndpointTarget | undefined {
  const url = webUrl(text);
  if (url) return webTarget(url, text, parameter);
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(text)?.[1];
  const rest = text.replace(/^([a-z][a-z0-9+.-]*:)?\/\//i, '');
  const slash = rest.indexOf('/');
  const hostPart = slash === -1 ? rest : rest.slice(0, slash);
  const path = slash === -1 ? '' : rest.slice(slash);
  const hostPort = splitHostPort(hostPart.replace(/^[^@]*@/, ''));
  const asset = hostPort ? hostAsset(hostPort.host) : undefined;
  if (!asset) return undefined;
  const location: LocationRef = hostPort?.port ? portLocation(hostPort.port, scheme) : { kind: 'None' };
  return { asset, location, ...(path.length > 1 && !scheme ? { droppedPath: text } : {}) };
}

function objectTarget(endpoint: JsonObject, parameter?: string): EndpointTarget | undefined {
  const host = asText(endpoint.host);
  if (!host) return undefined;
  const protocol = asText(endpoint.protocol)?.toLowerCase();
  const port = portNumber(endpoint.port);
  if (protocol === 'http' || protocol === 'https') {
    const path = asText(endpoint.path)?.replace(/^\/*/, '/') ?? '/';
    const query = asText(endpoint.query);
    const fragment = asText(endpoint.fragment);
    const raw = `${protocol}://${host}${port ? `:${port}` : ''}${path}${query ? `?${query}` : ''}${fragment ? `#${fragment}` : ''}`;
    const url = webUrl(raw);
    if (url) return webTarget(url, raw, parameter);
  }
  const asset = hostAsset(host);
  if (!asset) return undefined;
  return { asset, location: port ? portLocation(port, protocol) : { kind: 'None' } };
}
