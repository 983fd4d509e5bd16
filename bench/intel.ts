/**
 * npm run bench:intel — generates a synthetic NVD CVE API 2.0 feed of 50,000 CVEs with 300,000
 * CPE match entries (25 result pages of 2,000, as NVD serves them), loads it (wall time, records/s,
 * peak RSS), loads it again unchanged, then builds the CPE matcher and matches 10,000 detected
 * services against it (services/s). The baseline, measured in the same run, evaluates every CVE's
 * configurations for each service without the index (on a sample of services).
 * Runs on PostgreSQL when DATABASE_URL is set (a fresh database, dropped afterwards), else on the
 * embedded database. BENCH_INTEL_CVES and BENCH_INTEL_SERVICES scale it.
 */

import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { chmodSync, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { type Database, openEmbedded, openPostgres } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import {
  CompileCache,
  type CompiledConfiguration,
  compileConfigurations,
  evaluateConfigurations,
  prepareTarget,
} from '../src/intel/cpe/configuration.js';
import type { Configuration } from '../src/intel/types.js';
import { LocalInvalidationBus } from '../src/lib/invalidation-bus.js';
import { buildServices } from '../src/services.js';

const CVES = Number(process.env.BENCH_INTEL_CVES ?? 50_000);
const SERVICES = Number(process.env.BENCH_INTEL_SERVICES ?? 10_000);
const PAGE = 2_000;
const ENTRIES_PER_CVE = 6; // 300,000 at 50,000 CVEs
const PRODUCTS = 2_500;
const dir = mkdtempSync(join(tmpdir(), 'rampart-bench-intel-'));
// Passable by others: as root, the embedded server in a folder below runs as its own account.
chmodSync(dir, 0o755);

const vendorOf = (p: number) => `vendor${p % 800}`;
const productOf = (p: number) => `product${p}`;

/** CVE i: six entries over two products of one vendor, ranges of real shapes, one running-on pair. */
function configurations(i: number): Configuration[] {
  const p = (i * 7) % PRODUCTS;
  const q = (p + 1) % PRODUCTS;
  const major = (i % 9) + 1;
  const entry = (product: number, range: Record<string, string>, version = '*') => ({
    vulnerable: true,
    criteria: `cpe:2.3:a:${vendorOf(product)}:${productOf(product)}:${version}:*:*:*:*:*:*:*`,
    matchCriteriaId: randomBytes(8).toString('hex').toUpperCase(),
    ...range,
  });
  return [
    {
      nodes: [
        {
          operator: 'OR',
          negate: false,
          cpeMatch: [
            entry(p, { versionStartIncluding: `${major}.0`, versionEndExcluding: `${major}.4.${i % 50}` }),
            entry(p, {
              versionStartIncluding: `${major + 1}.0.0`,
              versionEndIncluding: `${major + 1}.2.${i % 30}p1`,
            }),
            entry(p, {}, `${major}.5.${i % 20}`),
            entry(q, { versionEndExcluding: `${major}.${i % 12}.0-rc${(i % 3) + 1}` }),
          ],
        },
      ],
    },
    {
      operator: 'AND',
      nodes: [
        { operator: 'OR', negate: false, cpeMatch: [entry(q, { versionStartExcluding: `${major}.1` }, '*')] },
        {
          operator: 'OR',
          negate: false,
          cpeMatch: [
            {
              vulnerable: false,
              criteria: `cpe:2.3:o:${vendorOf(q)}:platform${q % 20}:-:*:*:*:*:*:*:*`,
              matchCriteriaId: randomBytes(8).toString('hex').toUpperCase(),
            },
          ],
        },
      ],
    },
  ];
}

function record(i: number) {
  const id = `CVE-${2000 + Math.floor(i / 90_000)}-${10_000 + (i % 90_000)}`;
  return {
    cve: {
      id,
      sourceIdentifier: 'cve@mitre.org',
      published: '2024-01-15T10:00:00.000',
      lastModified: '2025-06-01T10:00:00.000',
      vulnStatus: 'Analyzed',
      descriptions: [
        { lang: 'en', value: `Synthetic vulnerability ${i} in ${productOf((i * 7) % PRODUCTS)}.` },
      ],
      metrics: {
        cvssMetricV31: [
          {
            source: 'nvd@nist.gov',
            type: 'Primary',
            cvssData: {
              version: '3.1',
              vectorString: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
              baseScore: 9.8,
              baseSeverity: 'CRITICAL',
            },
          },
        ],
      },
      weaknesses: [
        { source: 'nvd@nist.gov', type: 'Primary', description: [{ lang: 'en', value: 'CWE-787' }] },
      ],
      configurations: configurations(i),
      references: [{ url: `https://example.com/advisories/${i}`, source: 'cve@mitre.org' }],
    },
  };
}

async function writePages(): Promise<string[]> {
  const files: string[] = [];
  for (let start = 0; start < CVES; start += PAGE) {
    const file = join(dir, `nvd-${String(start / PAGE).padStart(3, '0')}.json`);
    const out = createWriteStream(file);
    out.write(
      `{"resultsPerPage":${PAGE},"startIndex":${start},"totalResults":${CVES},"format":"NVD_CVE","version":"2.0","timestamp":"2025-06-01T12:00:00.000","vulnerabilities":[`,
    );
    for (let i = start; i < Math.min(CVES, start + PAGE); i++)
      if (!out.write(`${i > start ? ',' : ''}${JSON.stringify(record(i))}`)) await once(out, 'drain');
    out.end(']}');
    await once(out, 'finish');
    files.push(file);
  }
  return files;
}

/** A detected service: mostly products the feed knows, at versions in and out of its ranges. */
function service(s: number): string {
  const p = (s * 13) % (PRODUCTS * 2); // half unknown to the feed
  const version = `${(s % 10) + 1}.${s % 7}.${s % 40}${s % 5 === 0 ? 'p1' : ''}`;
  return s % 2 === 0
    ? `cpe:2.3:a:${vendorOf(p)}:${productOf(p)}:${version}:*:*:*:*:*:*:*`
    : `cpe:/a:${vendorOf(p)}:${productOf(p)}:${version}`;
}

function peakRss() {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 50);
  return () => {
    clearInterval(timer);
    return Math.max(peak, process.memoryUsage.rss());
  };
}

const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;

async function run(label: string, database: Database, files: string[]) {
  await migrateToLatest(database.db);
  const services = buildServices(database, () => new Date(), new LocalInvalidationBus(), {
    authCacheSeconds: 0,
    sessionIdleMinutes: 30,
    sessionMaxHours: 12,
  });
  const rows: string[] = [];
  for (const step of ['first load', 'unchanged reload']) {
    global.gc?.();
    const stop = peakRss();
    const started = performance.now();
    let added = 0;
    let unchanged = 0;
    for (const file of files) {
      const load = await services.intel.loadFile(file);
      if (load.state !== 'Completed') throw new Error(`${file}: ${load.error}`);
      added += load.added + load.updated;
      unchanged += load.unchanged;
    }
    const seconds = (performance.now() - started) / 1000;
    rows.push(
      `| ${label} | ${step} of ${CVES.toLocaleString()} CVEs (${(CVES * ENTRIES_PER_CVE).toLocaleString()} CPE match entries, ${files.length} pages) | ${seconds.toFixed(1)} s | ${Math.round(CVES / seconds).toLocaleString()} CVEs/s | ${mb(stop())} | written ${added.toLocaleString()}, unchanged ${unchanged.toLocaleString()} |`,
    );
    console.log(rows.at(-1));
  }

  global.gc?.();
  const stop = peakRss();
  let started = performance.now();
  const matcher = await services.intelMatcher.cpeIndex();
  const buildSeconds = (performance.now() - started) / 1000;
  const stats = matcher.stats;
  const targets = Array.from({ length: SERVICES }, (_, s) => service(s));
  // Two passes: the first includes the JIT warming up (a server's first matches), the second is
  // the steady state of a server that matches all day.
  const pass = () => {
    const t0 = performance.now();
    let vulnerable = 0;
    let found = 0;
    for (const target of targets) {
      const result = matcher.match(target);
      if (result.cves.length > 0) vulnerable += 1;
      found += result.cves.length;
    }
    return { seconds: (performance.now() - t0) / 1000, vulnerable, found };
  };
  const cold = pass();
  const warm = pass();
  const matched = warm.vulnerable;
  const cves = warm.found;
  const matchSeconds = warm.seconds;
  const rate = SERVICES / matchSeconds;
  rows.push(
    `| ${label} | build the matcher (${stats.cves.toLocaleString()} CVEs, ${stats.entries.toLocaleString()} entries, ${stats.products.toLocaleString()} products) | ${buildSeconds.toFixed(1)} s | | ${mb(stop())} | |`,
  );
  console.log(rows.at(-1));

  // Baseline: the same matching without the index — every CVE's configurations (compiled once,
  // as the index does) evaluated for each service.
  const cache = new CompileCache();
  const all: { configurations: CompiledConfiguration[] }[] = [];
  let after: string | null = null;
  for (;;) {
    const page = await services.intel.configurationsPage(after, 5000);
    for (const row of page)
      all.push({ configurations: compileConfigurations(row.configurations as Configuration[], cache) });
    if (page.length < 5000) break;
    after = page[page.length - 1]!.cveId;
  }
  const sample = targets.slice(0, 50);
  started = performance.now();
  let baselineCves = 0;
  for (const target of sample) {
    const prepared = prepareTarget(target).target;
    for (const cve of all)
      if (evaluateConfigurations(cve.configurations, prepared).vulnerable) baselineCves += 1;
  }
  const baselineRate = sample.length / ((performance.now() - started) / 1000);
  const sampleCves = sample.reduce((n, t) => n + matcher.match(t).cves.length, 0);
  if (sampleCves !== baselineCves)
    throw new Error(`the index found ${sampleCves} CVEs for the sample, the full evaluation ${baselineCves}`);
  rows.push(
    `| ${label} | match ${SERVICES.toLocaleString()} services (${matched.toLocaleString()} vulnerable, ${cves.toLocaleString()} CVE matches), second pass (first pass, JIT warming up: ${cold.seconds.toFixed(2)} s, ${Math.round(SERVICES / cold.seconds).toLocaleString()} services/s) | ${matchSeconds.toFixed(2)} s | **${Math.round(rate).toLocaleString()} services/s** | | baseline without the index ${baselineRate.toFixed(1)} services/s (same CVEs found for its ${sample.length}-service sample): ratio **${Math.round(rate / baselineRate).toLocaleString()}×** |`,
  );
  console.log(rows.at(-1));
  return rows;
}

async function onPostgres(files: string[]): Promise<string[]> {
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  const name = `rampart_bench_${randomBytes(4).toString('hex')}`;
  await admin.query(`create database ${name}`);
  const url = new URL(process.env.DATABASE_URL ?? '');
  url.pathname = `/${name}`;
  const database = await openPostgres(url.toString(), 4);
  try {
    return await run('postgresql', database, files);
  } finally {
    await database.close();
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

async function onEmbedded(files: string[]): Promise<string[]> {
  const database = await openEmbedded(join(dir, 'embedded'), 'bench');
  try {
    return await run('embedded', database, files);
  } finally {
    await database.close();
  }
}

try {
  console.log(`bench:intel — generating ${CVES.toLocaleString()} NVD CVE records`);
  const files = await writePages();
  const rows = process.env.DATABASE_URL ? await onPostgres(files) : await onEmbedded(files);
  console.log('\n| database | step | wall time | rate | peak RSS of the process | result |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
