#!/usr/bin/env node
// Builds knowledge-base/ — the offline intelligence Rampart loads on first start — from the real
// public records in a source folder laid out like ../shared/data/intel (nvd/, cve5/, kev/, epss/,
// osv/). Each feed becomes one gzip file in that feed's own published format, so the loaders read
// it like any download: NVD records as one NVD CVE API 2.0 result page, CVE 5 records and OSV
// advisories as JSON arrays, the KEV catalogue and the EPSS CSV as they are.
//
//   node scripts/build-knowledge-base.mjs [SOURCE_DIR] [OUT_DIR]
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const source = path.resolve(process.argv[2] ?? '../shared/data/intel');
const out = path.resolve(process.argv[3] ?? 'knowledge-base');
fs.mkdirSync(out, { recursive: true });

const jsonFiles = (dir) =>
  fs
    .readdirSync(path.join(source, dir))
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(fs.readFileSync(path.join(source, dir, f), 'utf8')));

function write(name, text) {
  // mtime 0 in the gzip header: the same input always gives the same bytes.
  const gz = zlib.gzipSync(Buffer.from(text), { level: 9 });
  gz.writeUInt32LE(0, 4);
  fs.writeFileSync(path.join(out, name), gz);
  console.log(`${name}: ${text.length} bytes → ${gz.length} gzipped`);
}

const cves = jsonFiles('nvd');
const newest = cves
  .map((c) => c.lastModified)
  .sort()
  .at(-1);
write(
  'nvd-cves.json.gz',
  JSON.stringify({
    resultsPerPage: cves.length,
    startIndex: 0,
    totalResults: cves.length,
    format: 'NVD_CVE',
    version: '2.0',
    timestamp: newest,
    vulnerabilities: cves.map((cve) => ({ cve })),
  }),
);
write('cve5-records.json.gz', JSON.stringify(jsonFiles('cve5')));
write(
  'kev-catalog.json.gz',
  fs.readFileSync(path.join(source, 'kev', 'known_exploited_vulnerabilities.json'), 'utf8'),
);
write('epss-scores.csv.gz', fs.readFileSync(path.join(source, 'epss', 'epss_scores-subset.csv'), 'utf8'));
write('osv-advisories.json.gz', JSON.stringify(jsonFiles('osv')));
