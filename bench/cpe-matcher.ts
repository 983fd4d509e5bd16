/**
 * npm run bench:cpe — the CPE matcher's index in memory, without a database: builds it over
 * 10,000 synthetic CVEs of 2,000 products (60,000 CPE match entries: ranges and exact versions),
 * then matches 5,000 services against it after a warm-up of 2,000. The baseline, measured in the
 * same run, evaluates every CVE's compiled configurations for each service without the index, on
 * a sample of services; it must find exactly the CVEs the index finds for that sample.
 * BENCH_CPE_CVES, BENCH_CPE_SERVICES and BENCH_CPE_SAMPLE scale it.
 */

import {
  compileConfigurations,
  evaluateConfigurations,
  prepareTarget,
} from '../src/intel/cpe/configuration.js';
import { CpeMatcher } from '../src/intel/cpe/index.js';
import { syntheticCves, syntheticService } from '../test/intel/cpe/synthetic.js';
import { positiveKnob } from './knobs.js';

const CVES = positiveKnob('BENCH_CPE_CVES', 10_000);
const SERVICES = positiveKnob('BENCH_CPE_SERVICES', 5_000);
const SAMPLE = positiveKnob('BENCH_CPE_SAMPLE', 100);
const PRODUCTS = 2_000;
const WARM_UP = 2_000;

function main(): void {
  const records = syntheticCves(CVES, PRODUCTS);
  const service = (i: number) => syntheticService(i, PRODUCTS);

  let started = performance.now();
  const matcher = CpeMatcher.build(records);
  const buildMs = performance.now() - started;

  for (let i = 0; i < WARM_UP; i++) matcher.match(service(i));
  started = performance.now();
  let found = 0;
  for (let i = 0; i < SERVICES; i++) found += matcher.match(service(i)).cves.length;
  const indexMs = performance.now() - started;

  // Baseline: every CVE's configurations, compiled once, evaluated for each service of a sample.
  const compiled = records.map((r) => ({
    cveId: r.cveId,
    configurations: compileConfigurations(r.configurations),
  }));
  const sample = Array.from({ length: SAMPLE }, (_, i) =>
    service(i * Math.max(1, Math.floor(SERVICES / SAMPLE))),
  );
  started = performance.now();
  let baselineFound = 0;
  for (const input of sample) {
    const { target } = prepareTarget(input);
    for (const cve of compiled)
      if (evaluateConfigurations(cve.configurations, target).vulnerable) baselineFound += 1;
  }
  const baselineMs = performance.now() - started;
  const sampleFound = sample.reduce((sum, input) => sum + matcher.match(input).cves.length, 0);
  if (sampleFound !== baselineFound)
    throw new Error(
      `the index found ${sampleFound} CVEs for the sample, the full evaluation ${baselineFound}`,
    );

  const perCall = (ms: number, calls: number) => (ms * 1000) / calls;
  const indexUs = perCall(indexMs, SERVICES);
  const baselineUs = perCall(baselineMs, sample.length);
  console.log(
    `bench:cpe — ${CVES.toLocaleString()} CVEs, ${matcher.stats.entries.toLocaleString()} entries, ${PRODUCTS.toLocaleString()} products`,
  );
  console.log('\n| step | calls | wall time | per call | result |');
  console.log('|---|---|---|---|---|');
  console.log(
    `| build the index | 1 | ${buildMs.toFixed(0)} ms | | ${matcher.stats.entries.toLocaleString()} entries |`,
  );
  console.log(
    `| match with the index (after ${WARM_UP.toLocaleString()} warm-up calls) | ${SERVICES.toLocaleString()} | ${indexMs.toFixed(0)} ms | ${indexUs.toFixed(1)} µs | ${found.toLocaleString()} CVE matches |`,
  );
  console.log(
    `| baseline: every CVE evaluated, no index | ${sample.length.toLocaleString()} | ${baselineMs.toFixed(0)} ms | ${baselineUs.toFixed(1)} µs | ${baselineFound.toLocaleString()} CVE matches, the same as the index's for this sample |`,
  );
  console.log(
    `\nratio: the index answers **${Math.round(baselineUs / indexUs).toLocaleString()}×** faster than the baseline`,
  );
}

main();
