/**
 * How sure we are that a file is Nuclei output, from its first 64 KiB: JSON results (one a line,
 * or in an array) with a template id and an `info` block.
 *
 * An empty file gets 0.8: Nuclei writes one when nothing matched, which makes it by far the
 * likeliest producer of an empty report (other tools write at least a skeleton), and reading it
 * as Nuclei gives the truthful answer — no findings.
 */
export function detectNuclei(head: string): number {
  const text = head.replace(/^\uFEFF/, '').trimStart();
  if (text === '') return 0.8;
  const first = text[0];
  if (first !== '{' && first !== '[') return 0;
  const templateId = /"(?:template-id|templateID)"\s*:\s*"/.test(text);
  const info = /"info"\s*:\s*\{/.test(text);
  if (!templateId || !info) return 0;
  // JSON Lines: the first result is a whole object on the first line.
  const firstLine = text.split('\n', 1)[0]!;
  if (first === '{') return /"(?:template-id|templateID)"/.test(firstLine) ? 0.95 : 0.85;
  return 0.9;
}
