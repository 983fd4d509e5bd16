/** Levenshtein distance, bounded: returns max + 1 as soon as the distance exceeds max. */
function distance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > max) return max + 1;
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The known name a mistyped one most likely meant: the same name in another case first,
 * else the closest name within two edits (ignoring case).
 */
export function suggestName(unknown: string, known: readonly string[]): string | undefined {
  const lower = unknown.toLowerCase();
  const sameCase = known.find((k) => k.toLowerCase() === lower);
  if (sameCase) return sameCase;
  let best: string | undefined;
  let bestDistance = 3;
  for (const k of known) {
    const d = distance(lower, k.toLowerCase(), 2);
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  return best;
}
