import { evidence } from './text.js';
import type { ServiceGuess } from './types.js';
import { cpesFor } from './vendors.js';

/** How sure a guess is: the protocol alone, the product, the product and its version. */
export const CONFIDENCE = { service: 0.5, product: 0.8, version: 0.95 } as const;

/** A guess with its CPE names and confidence derived from what is known. */
export function guess(
  service: string,
  product: string | null,
  version: string | null,
  matched: string,
): ServiceGuess {
  const known = product === null ? null : version;
  return {
    service,
    product,
    version: known,
    cpes: product === null ? [] : cpesFor(product, known),
    confidence:
      product === null ? CONFIDENCE.service : known === null ? CONFIDENCE.product : CONFIDENCE.version,
    evidence: evidence(matched),
  };
}

/** A version token as banners write them (`8.9p1`, `1.22.1`, `4.96`), bounded in length. */
export const VERSION = String.raw`\d[0-9A-Za-z.+~_-]{0,40}`;
