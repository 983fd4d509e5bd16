import { describe, expect, it } from 'vitest';
import { IMPORTERS } from '../../src/importers/index.js';
import { TESTSSL_SEVERITY, testsslImporter } from '../../src/importers/testssl/index.js';
import type { FindingRecord } from '../../src/importers/types.js';
import { failure, head, manifestEntries, parseFixture, parseText } from './helpers.js';

const HEADER = '"id","fqdn/ip","port","severity","finding","cve","cwe"';
const OTHER_SAMPLES = [
  'nikto/nikto-output.xml',
  'nikto/issue_9274.json',
  'sslscan/sslscan_many_vuln.xml',
  'dependency_check/PR6439.xml',
  'openvas/many_vuln.csv',
  'generic/generic_report3.csv',
  'qualys/Qualys_Sample_Report.csv',
  'tenable/issue_11102.csv',
];

/** DefectDojo's count: a finding per CVE of a row, merged on (finding text, id, CVE) across hosts. */
function defectDojoCount(findings: FindingRecord[]): number {
  const keys = new Set<string>();
  for (const f of findings)
    for (const cve of f.vulnerability.cveIds ?? [''])
      keys.add(JSON.stringify([f.vulnerability.description ?? '', f.vulnerability.ruleId, cve]));
  return keys.size;
}

describe('testssl importer: DefectDojo samples', () => {
  // Rampart keeps one finding per row (host, port and check) with all its CVEs; DefectDojo splits
  // rows per CVE and merges the same check across the four addresses of www.defectdojo.org.
  // - defectdojo_many_vuln.csv: 541 rows, 164 OK and 0 rating rows left out → 377 findings;
  //   DefectDojo's 100 are the distinct (finding text, id, CVE) of those;
  // - many_cves.csv: one DROWN row naming 2 CVEs → 1 finding (DefectDojo: 2).
  const rampartFindings: Record<string, number> = {
    'testssl/defectdojo_many_vuln.csv': 377,
    'testssl/many_cves.csv': 1,
  };
  for (const entry of manifestEntries('testssl')) {
    const expected = rampartFindings[entry.file] ?? entry.expectedFindings;
    it(`${entry.file}: ${expected} findings (DefectDojo: ${entry.expectedFindings})`, async () => {
      const { findings, warnings } = await parseFixture(testsslImporter, entry.file);
      expect(findings).toHaveLength(expected);
      expect(defectDojoCount(findings)).toBe(entry.expectedFindings);
      expect(warnings).toEqual([]);
    });
  }

  it("many_cves.csv: DefectDojo's first finding", async () => {
    const [drown] = (await parseFixture(testsslImporter, 'testssl/many_cves.csv')).findings;
    expect(drown).toEqual({
      type: 'finding',
      asset: { kind: 'Host', hostname: 'www.defectdojo.org', ipAddresses: ['185.199.109.153'] },
      vulnerability: {
        ruleId: 'DROWN',
        title: 'DROWN',
        description: 'vulnerable to DROWN on this host and port',
        cveIds: ['CVE-2016-0800', 'CVE-2016-0703'],
        cweIds: ['CWE-310'],
      },
      location: { kind: 'Port', port: 443, protocol: 'tcp' },
      severity: 'High',
      evidence: 'vulnerable to DROWN on this host and port',
    });
  });

  it('leaves out OK rows and the rating rows, keeps INFO and WARN as Info', async () => {
    const { findings } = await parseFixture(testsslImporter, 'testssl/overall_medium.csv');
    expect(findings.map((f) => f.vulnerability.ruleId)).toEqual(['service', 'pre_128cipher']);
    const [warn] = (await parseFixture(testsslImporter, 'testssl/defectdojo_one_vuln.csv')).findings;
    // "www.defectdojo.org/": a name without an address.
    expect(warn).toMatchObject({
      severity: 'Info',
      asset: { kind: 'Host', hostname: 'www.defectdojo.org' },
      vulnerability: { ruleId: 'engine_problem' },
    });
    expect(warn!.asset.ipAddresses).toBeUndefined();
  });

  it('defectdojo_many_vuln.csv: severities', async () => {
    const { findings } = await parseFixture(testsslImporter, 'testssl/defectdojo_many_vuln.csv');
    const count = (s: string) => findings.filter((f) => f.severity === s).length;
    expect([count('High'), count('Low'), count('Info')]).toEqual([4, 12, 361]);
  });

  it('reads CRITICAL and MEDIUM, and warns of an unknown severity', async () => {
    const text = `${HEADER}\n"heartbleed","a.example/10.0.0.1","443","CRITICAL","VULNERABLE","CVE-2014-0160","CWE-119"\n"BREACH","a.example/10.0.0.1","443","MEDIUM","potentially VULNERABLE","CVE-2013-3587","CWE-310"\n"x","a.example/10.0.0.1","443","SEVERE","?","",""\n`;
    const { findings, warnings } = await parseText(testsslImporter, text);
    expect(findings.map((f) => f.severity)).toEqual(['Critical', 'Medium', 'Info']);
    expect(findings[0]!.vulnerability.cweIds).toEqual(['CWE-119']);
    expect(warnings).toEqual([
      'Rows with the unknown severity "SEVERE" (first at line 4) were read as Info.',
    ]);
  });
});

describe('testssl importer: severities', () => {
  it('maps as documented', () => {
    expect(TESTSSL_SEVERITY).toEqual({
      CRITICAL: 'Critical',
      HIGH: 'High',
      MEDIUM: 'Medium',
      LOW: 'Low',
      WARN: 'Info',
      FATAL: 'Info',
      INFO: 'Info',
      OK: null,
    });
  });
});

describe('testssl importer: detection', () => {
  for (const entry of manifestEntries('testssl'))
    it(`claims ${entry.file}`, () =>
      expect(testsslImporter.detect(head(entry.file))).toBeGreaterThanOrEqual(0.8));

  it("leaves other formats' samples alone", () => {
    for (const file of OTHER_SAMPLES) expect(testsslImporter.detect(head(file)), file).toBeLessThan(0.5);
  });

  it('is not claimed by the other importers (generic, OpenVAS, Nessus, Qualys read CSV too)', () => {
    for (const entry of manifestEntries('testssl'))
      for (const other of IMPORTERS.filter((i) => i.format !== 'testssl'))
        expect(other.detect(head(entry.file)), `${other.format} on ${entry.file}`).toBeLessThan(0.5);
  });
});

describe('testssl importer: bad input', () => {
  it('says an empty file is empty', async () => {
    expect((await failure(parseText(testsslImporter, ''))).message).toMatch(/empty/);
  });

  it('names the columns of a CSV of another tool', async () => {
    const error = await failure(parseText(testsslImporter, 'Title,Severity,Description\nx,High,y\n'));
    expect(error.message).toMatch(
      /^Not a testssl\.sh CSV report .*the columns are "title, severity, description"/,
    );
    expect(error.line).toBe(1);
  });

  it('skips rows without a host or port, with a warning', async () => {
    const text = `${HEADER}\n"DROWN","","443","HIGH","x","",""\n"DROWN","a.example/","x","HIGH","x","",""\n`;
    const { findings, warnings } = await parseText(testsslImporter, text);
    expect(findings).toEqual([]);
    expect(warnings).toEqual(['Rows without an id, a host or a port (first at line 2) were skipped.']);
  });

  it('reads a header-only file as no findings', async () => {
    expect((await parseText(testsslImporter, `${HEADER}\n`)).records).toEqual([]);
  });
});
