/**
 * npm run bench:web — the JavaScript the sign-in page loads before it can render: the scripts and
 * module preloads named in the built index.html, gzipped. Budget: 250 KB. Exits 1 over budget.
 */
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

const BUDGET_KB = 250;
const webDir = path.resolve(import.meta.dirname, '../dist/web');
const indexPath = path.join(webDir, 'index.html');
if (!fs.existsSync(indexPath)) {
  console.error('dist/web/index.html is missing: run npm run build:web first');
  process.exit(1);
}
const html = fs.readFileSync(indexPath, 'utf8');
const files = new Set(
  [...html.matchAll(/<(?:script[^>]*\bsrc|link[^>]*rel="modulepreload"[^>]*\bhref)="([^"]+\.js)"/g)].map(
    (m) => m[1]!,
  ),
);
let rawTotal = 0;
let gzipTotal = 0;
for (const file of files) {
  const content = fs.readFileSync(path.join(webDir, file.replace(/^\//, '')));
  const gz = gzipSync(content, { level: 9 }).length;
  rawTotal += content.length;
  gzipTotal += gz;
  console.log(`${file}: ${(content.length / 1024).toFixed(1)} KB, ${(gz / 1024).toFixed(1)} KB gzipped`);
}
const kb = gzipTotal / 1024;
console.log(
  `initial JavaScript of the sign-in page: ${(rawTotal / 1024).toFixed(1)} KB, ${kb.toFixed(1)} KB gzipped (budget ${BUDGET_KB} KB, ${((kb / BUDGET_KB) * 100).toFixed(0)} % used)`,
);
if (files.size === 0) {
  console.error('no script found in index.html');
  process.exit(1);
}
if (kb > BUDGET_KB) process.exit(1);
