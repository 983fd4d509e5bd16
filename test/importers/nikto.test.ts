import { describe, expect, it } from 'vitest';
import { IMPORTERS } from '../../src/importers/index.js';
import { NIKTO_SEVERITY, niktoImporter } from '../../src/importers/nikto/index.js';
import { failure, head, manifestEntries, parseFixture, parseText } from './helpers.js';

const OTHER_SAMPLES = [
  'testssl/defectdojo_many_vuln.csv',
  'testssl/many_cves.csv',
  'sslscan/sslscan_many_vuln.xml',
  'dependency_check/PR6439.xml',
  'dependency_check/version-6.5.3.xml',
  'zap/0_zap_sample.xml',
];

describe('nikto importer: DefectDojo samples', () => {
  // One finding per item, as DefectDojo (its merge of items with the same text never applies).
  for (const entry of manifestEntries('nikto'))
    it(`${entry.file}: ${entry.expectedFindings} findings`, async () => {
      const { findings, warnings } = await parseFixture(niktoImporter, entry.file);
      expect(findings).toHaveLength(entry.expectedFindings);
      expect(warnings).toEqual([]);
    });

  it("tdh.xml: DefectDojo's first finding (nested <niktoscan>)", async () => {
    const [first] = (await parseFixture(niktoImporter, 'nikto/tdh.xml')).findings;
    expect(first).toEqual({
      type: 'finding',
      asset: { kind: 'WebApplication', url: 'https://www.tdh.com' },
      vulnerability: {
        ruleId: '999100',
        title: "Uncommon header 'x-cache' found, with contents: HIT",
        description: "Uncommon header 'x-cache' found, with contents: HIT",
      },
      location: { kind: 'Url', url: 'https://www.tdh.com/' },
      severity: 'Info',
      evidence: 'Method: GET',
    });
  });

  it('nikto-output.xml: OSVDB items are Medium with the OSVDB id and link', async () => {
    const { findings } = await parseFixture(niktoImporter, 'nikto/nikto-output.xml');
    const favicon = findings.find((f) => f.vulnerability.ruleId === '500008')!;
    expect(favicon).toMatchObject({
      severity: 'Medium',
      asset: { kind: 'WebApplication', url: 'http://localhost:8070' },
      // The item's own links are empty or broken ("http://:/favicon.ico"): the URL is built from the site.
      location: { kind: 'Url', url: 'http://localhost:8070/favicon.ico' },
      vulnerability: { aliases: ['OSVDB-39272'], references: ['http://osvdb.org/39272'] },
    });
    expect(findings.filter((f) => f.severity === 'Medium')).toHaveLength(7);
    expect(findings.filter((f) => f.severity === 'Info')).toHaveLength(6);
    const options = findings.find((f) => f.vulnerability.ruleId === '999990')!;
    expect(options.evidence).toBe('Method: OPTIONS');
    // Titles are the first sentence of the message.
    const xss = findings.find((f) => f.vulnerability.ruleId === '000834')!;
    expect(xss.vulnerability.description).toMatch(/Cross Site Scripting \(XSS\)\. CA-2000-02\.$/);
    expect(xss.vulnerability.title).not.toMatch(/CA-2000-02/);
  });

  it('issue_9274.json: reads the JSON report', async () => {
    const { findings } = await parseFixture(niktoImporter, 'nikto/issue_9274.json');
    expect(findings[2]).toEqual({
      type: 'finding',
      asset: { kind: 'WebApplication', url: 'https://example.com' },
      vulnerability: {
        ruleId: '999103',
        title: 'The X-Content-Type-Options header is not set.',
        description:
          'The X-Content-Type-Options header is not set. This could allow the user agent to render the content of the site in a different fashion to the MIME type.',
        references: [
          'https://www.netsparker.com/web-vulnerability-scanner/vulnerabilities/missing-content-type-header/',
        ],
      },
      location: { kind: 'Url', url: 'https://example.com/robots.txt' },
      severity: 'Info',
      evidence: 'Method: GET',
    });
    expect(findings.every((f) => f.severity === 'Info')).toBe(true);
  });

  it('reads a single host object with an OSVDB id, on a non-default port', async () => {
    const report = {
      host: '10.0.0.5',
      ip: '10.0.0.5',
      port: '8080',
      banner: 'Apache',
      vulnerabilities: [{ id: '001', OSVDB: '3092', method: 'GET', url: '/admin/', msg: 'Admin found.' }],
    };
    const [finding] = (await parseText(niktoImporter, JSON.stringify(report))).findings;
    expect(finding).toMatchObject({
      asset: { url: 'http://10.0.0.5:8080' },
      location: { url: 'http://10.0.0.5:8080/admin/' },
      severity: 'Medium',
      vulnerability: { ruleId: '001', aliases: ['OSVDB-3092'] },
    });
  });
});

describe('nikto importer: severities', () => {
  it('maps as documented (OSVDB → Medium, else Info)', () => {
    expect(NIKTO_SEVERITY).toEqual({ osvdb: 'Medium', other: 'Info' });
  });
});

describe('nikto importer: detection', () => {
  for (const entry of manifestEntries('nikto'))
    it(`claims ${entry.file}`, () =>
      expect(niktoImporter.detect(head(entry.file))).toBeGreaterThanOrEqual(0.8));

  it("leaves other formats' samples alone", () => {
    for (const file of OTHER_SAMPLES) expect(niktoImporter.detect(head(file)), file).toBeLessThan(0.5);
  });

  it('is not claimed by the other importers', () => {
    for (const entry of manifestEntries('nikto'))
      for (const other of IMPORTERS.filter((i) => i.format !== 'nikto'))
        expect(other.detect(head(entry.file)), `${other.format} on ${entry.file}`).toBeLessThan(0.5);
  });
});

describe('nikto importer: bad input', () => {
  const item =
    '<item id="1" osvdbid="0" method="GET"><description><![CDATA[x]]></description><uri>/</uri></item>';

  it('fails on truncated XML with the line and column', async () => {
    const text = `<?xml version="1.0" ?>\n<niktoscan>\n<scandetails sitename="http://a/">\n${item}\n<item id="2"`;
    const error = await failure(parseText(niktoImporter, text));
    expect(error.message).toMatch(/^Not well-formed XML/);
    expect(error.line).toBe(5);
    expect(error.column).toBeGreaterThan(0);
  });

  it('refuses an external entity (XXE)', async () => {
    const text = `<?xml version="1.0"?>\n<!DOCTYPE niktoscan [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n<niktoscan><scandetails sitename="http://a/"><item id="1"><description>&xxe;</description></item></scandetails></niktoscan>`;
    expect((await failure(parseText(niktoImporter, text))).message).toMatch(/declares a DTD/);
  });

  it('says an empty file is empty', async () => {
    expect((await failure(parseText(niktoImporter, ''))).message).toMatch(/empty/);
    expect((await failure(parseText(niktoImporter, ' \n'))).message).toMatch(/empty/);
  });

  it('says what is wrong with a file of another shape', async () => {
    const cases: [string, RegExp][] = [
      ['<nmaprun></nmaprun>', /root element is <nmaprun>/],
      ['id,host\n1,a\n', /neither XML nor JSON/],
      ['{"findings": []}', /expected a list of hosts/],
      ['[{"host": "a", "port": "80", "vulnerabilities": ["x"]}]', /vulnerability is not an object/],
      ['[{"host": "a", "port": "80", "vulnerabilities": [{"id": "1"', /Not valid JSON/],
      [`<niktoscan><scandetails>${item}</scandetails></niktoscan>`, /names no target/],
    ];
    for (const [text, message] of cases)
      expect((await failure(parseText(niktoImporter, text))).message).toMatch(message);
  });
});
