/**
 * How sure we are that a file is a SARIF log, from its first 64 KiB. A SARIF log is a JSON
 * object with "version" and "runs", each run naming its tool's "driver"; most tools also give
 * the schema URL, which names SARIF outright.
 */
export function detectSarif(head: string): number {
  const text = head.replace(/^\uFEFF/, '').trimStart();
  if (!text.startsWith('{')) return 0;
  const schema = /"\$schema"\s*:\s*"[^"]*sarif[^"]*"/i.test(text);
  const runs = /"runs"\s*:\s*\[/.test(text);
  const driver = /"driver"\s*:\s*\{/.test(text);
  const version = /"version"\s*:\s*"2\.1\.0"/.test(text);
  if (schema && runs) return 1;
  if (runs && driver) return version ? 0.95 : 0.9;
  if (schema) return 0.8;
  // "runs" alone: results (or another section) may fill the whole head before the tool.
  if (runs && version) return 0.6;
  return 0;
}
