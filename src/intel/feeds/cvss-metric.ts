import { scoreCvss } from '../cvss/cvss.js';
import type { CvssMetric } from '../types.js';
import { shortText } from './text.js';

export interface StatedCvss {
  vector: unknown;
  /** The score the feed states; computed from the vector when the feed gives none. */
  baseScore?: unknown;
  source?: string | undefined;
  type?: unknown;
  /** The version the feed's field names (cvssV3_1, cvssMetricV30…), for a vector without its prefix. */
  assumeVersion?: '3.0' | '3.1' | '4.0' | undefined;
}

/**
 * A feed's CVSS assessment, its vector checked by the CVSS module; `onInvalid` hears why one is
 * skipped. The vector is kept as the feed wrote it, unless it lacked its "CVSS:x.y/" prefix: then
 * the normalised vector (with the assumed version's prefix) is kept, so that it reads alone.
 */
export function cvssMetricOf(
  stated: StatedCvss,
  onInvalid: (reason: string) => void,
): CvssMetric | undefined {
  const vector = shortText(stated.vector);
  if (!vector) {
    onInvalid('it has no vector');
    return undefined;
  }
  const scored = scoreCvss(vector, stated.assumeVersion ? { assumeVersion: stated.assumeVersion } : {});
  if (!scored.ok) {
    onInvalid(`"${vector}": ${scored.error}`);
    return undefined;
  }
  const prefixed = vector.startsWith('CVSS:') || scored.version === '2.0';
  const metric: CvssMetric = {
    version: scored.version,
    vector: prefixed ? vector : scored.vector,
    baseScore: scoreOf(stated.baseScore) ?? scored.baseScore,
  };
  if (stated.source) metric.source = stated.source;
  if (stated.type === 'Primary' || stated.type === 'Secondary') metric.type = stated.type;
  return metric;
}

function scoreOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 10 ? value : undefined;
}
