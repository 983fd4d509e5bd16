/** A benchmark's knob: a positive integer from the environment, or the run stops before it starts, naming the knob. */
export function positiveKnob(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, not '${text}'`);
  return n;
}
