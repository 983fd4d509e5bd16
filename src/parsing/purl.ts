/**
 * The one reader of package URLs (https://github.com/package-url/purl-spec): the importers take
 * package names and versions from them, the OSV matching turns them into an ecosystem and a name.
 */

/** The parts of a package URL that Rampart uses; qualifiers and subpath are read past. */
export interface PackageUrl {
  /** Lower case: "npm", "maven", "deb". */
  type: string;
  /** The segments before the name, decoded, joined with "/": "@babel", "org.apache.logging.log4j". */
  namespace?: string;
  name: string;
  version?: string;
}

export type PurlReading = { ok: true; purl: PackageUrl } | { ok: false; error: string };

export interface PurlOptions {
  /**
   * Refuse a part that is not valid percent-encoding (matching must not guess at a name) instead
   * of keeping it as written (an import keeps what the report says).
   */
  strictEncoding?: boolean;
}

/** A purl type: ASCII letters, digits, ".", "+" and "-", not starting with a digit. */
const TYPE = /^[a-zA-Z][a-zA-Z0-9.+-]*$/;

class BadEncoding extends Error {}

function decoder(strict: boolean): (part: string) => string {
  return (part) => {
    try {
      return decodeURIComponent(part);
    } catch {
      if (strict) throw new BadEncoding();
      return part;
    }
  };
}

/**
 * Reads "pkg:type/namespace/name@version?qualifiers#subpath", saying why when it is not one.
 * "pkg://" is read as "pkg:", and trailing slashes of the path are ignored, as the spec asks.
 */
export function readPurl(text: unknown, options: PurlOptions = {}): PurlReading {
  const trimmed = typeof text === 'string' ? text.trim() : '';
  if (!trimmed.startsWith('pkg:')) return { ok: false, error: 'not a purl (pkg:type/name@version)' };
  const body = trimmed.slice(4).replace(/^\/+/, '').split(/[?#]/)[0]!;
  const slash = body.indexOf('/');
  if (slash <= 0) return { ok: false, error: 'purl needs a type and a name' };
  const type = body.slice(0, slash);
  if (!TYPE.test(type)) return { ok: false, error: `purl type "${type}" is not valid` };
  const path = body.slice(slash + 1).replace(/\/+$/, '');
  const at = path.lastIndexOf('@');
  const decode = decoder(options.strictEncoding ?? false);
  try {
    const version = at > 0 ? decode(path.slice(at + 1)) : undefined;
    const segments = (at > 0 ? path.slice(0, at) : path).split('/').filter(Boolean).map(decode);
    const name = segments.pop();
    if (!name) return { ok: false, error: 'purl needs a name' };
    return {
      ok: true,
      purl: {
        type: type.toLowerCase(),
        ...(segments.length > 0 ? { namespace: segments.join('/') } : {}),
        name,
        ...(version ? { version } : {}),
      },
    };
  } catch (error) {
    if (error instanceof BadEncoding) return { ok: false, error: 'purl has bad percent-encoding' };
    throw error;
  }
}

/** The parts of a package URL, or undefined when the text is not one. */
export function parsePurl(text: string | undefined): PackageUrl | undefined {
  const reading = readPurl(text);
  return reading.ok ? reading.purl : undefined;
}

/** The qualifiers of a package URL ("?arch=x86_64&tag=3.18"), decoded; empty for anything else. */
export function purlQualifiers(purl: string): Record<string, string> {
  const query = /^pkg:[^?#]*\?([^#]*)/.exec(purl.trim())?.[1];
  if (!query) return {};
  const out: Record<string, string> = {};
  for (const pair of query.split('&')) {
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    try {
      out[pair.slice(0, eq).toLowerCase()] = decodeURIComponent(pair.slice(eq + 1));
    } catch {
      out[pair.slice(0, eq).toLowerCase()] = pair.slice(eq + 1);
    }
  }
  return out;
}
