import { describe, expect, it } from 'vitest';
import type { SoftwareRecord } from '../../src/importers/types.js';
import { WAPITI_LEGACY_SEVERITY, WAPITI_SEVERITY, wapitiImporter } from '../../src/importers/wapiti/index.js';
import { failure, manifestEntries, parseFixture, parseText } from './helpers.js';

/** A Wapiti 3 report around some categories, as `wapiti -f xml` writes it. */
function report(sections: string, version = 'Wapiti 3.1.8', target = 'http://shop.example:8080/'): string {
  return `<?xml version="1.0" ?>
<report type="security">
   <report_infos>
      <info name="generatorName">wapiti</info>
      <info name="generatorVersion">${version}</info>
      <info name="scope">folder</info>
      <info name="target">${target}</info>
   </report_infos>
   ${sections}
</report>`;
}

function category(element: string, name: string, entries: string, references = ''): string {
  return `<${element} name="${name}"><description><![CDATA[About ${name}.]]></description>
    <solution><![CDATA[Fix ${name}.]]></solution><references>${references}</references>
    <entries>${entries}</entries></${element}>`;
}

function entry(fields: Record<string, string>): string {
  const all = { method: 'GET', path: '/', level: '1', parameter: '', info: '', ...fields };
  return `<entry>${Object.entries(all)
    .map(([k, v]) => `<${k}>${v}</${k}>`)
    .join('')}</entry>`;
}

describe('wapiti importer: DefectDojo samples', () => {
  // One finding per entry, as DefectDojo (its merge of entries with the same message never applies here).
  for (const entry of manifestEntries('wapiti'))
    it(`${entry.file}: ${entry.expectedFindings} findings`, async () => {
      const { findings, records, warnings } = await parseFixture(wapitiImporter, entry.file);
      expect(findings).toHaveLength(entry.expectedFindings);
      expect(records).toHaveLength(entry.expectedFindings);
      expect(warnings).toEqual([]);
    });

  it("cwe.xml: DefectDojo's first finding (title, Low, CWE-352)", async () => {
    const [first] = (await parseFixture(wapitiImporter, 'wapiti/cwe.xml')).findings;
    expect(first).toMatchObject({
      asset: { kind: 'WebApplication', url: 'https://example.org' },
      location: { kind: 'Url', url: 'https://example.org/' },
      severity: 'Low',
      vulnerability: {
        ruleId: 'Cross Site Request Forgery: CSP is not set',
        title: 'Cross Site Request Forgery: CSP is not set',
        cweIds: ['CWE-352'],
        description: expect.stringMatching(/^Cross-Site Request Forgery \(CSRF\) is an attack/),
        solution: expect.stringMatching(/^Check if your framework has built-in CSRF protection/),
        references: expect.arrayContaining(['https://cwe.mitre.org/data/definitions/352.html']),
      },
    });
    expect(first!.evidence).toBe(
      'CSP is not set\n\nRequest:\nGET / HTTP/1.1\nHost: example.org\n\ncURL: curl "https://example.org/"',
    );
  });

  it('example.xml: the header checks of one category stay distinct weaknesses', async () => {
    const { findings } = await parseFixture(wapitiImporter, 'wapiti/example.xml');
    expect(findings.map((f) => f.vulnerability.ruleId)).toEqual([
      'Content Security Policy Configuration: CSP is not set',
      'HTTP Secure Headers: X-Frame-Options is not set',
      'HTTP Secure Headers: X-XSS-Protection is not set',
      'HTTP Secure Headers: X-Content-Type-Options is not set',
      'HTTP Secure Headers: Strict-Transport-Security is not set',
    ]);
    expect(findings.every((f) => f.severity === 'Low' && f.location.url === 'https://example.org/')).toBe(
      true,
    );
  });
});

describe('wapiti importer: entries', () => {
  it('locates an injection at its URL and parameter, with the message as evidence', async () => {
    const sql = category(
      'vulnerability',
      'SQL Injection',
      entry({
        method: 'POST',
        path: '/login.php',
        level: '4',
        parameter: 'user',
        info: 'SQL Injection (DBMS: MySQL) in http://shop.example:8080/login.php via injection in the parameter user',
        http_request: '<![CDATA[POST /login.php HTTP/1.1\nHost: shop.example:8080\n\nuser=%27&pass=x]]>',
        detail: '<response><status_code>500</status_code></response>',
      }),
      '<reference><title>CWE-89: Improper Neutralization</title><url>https://cwe.mitre.org/data/definitions/89.html</url></reference>',
    );
    const { findings } = await parseText(wapitiImporter, report(`<vulnerabilities>${sql}</vulnerabilities>`));
    expect(findings).toEqual([
      {
        type: 'finding',
        asset: { kind: 'WebApplication', url: 'http://shop.example:8080' },
        location: { kind: 'Url', url: 'http://shop.example:8080/login.php', parameter: 'user' },
        vulnerability: {
          ruleId: 'SQL Injection',
          title: 'SQL Injection',
          description: 'About SQL Injection.',
          solution: 'Fix SQL Injection.',
          cweIds: ['CWE-89'],
          references: ['https://cwe.mitre.org/data/definitions/89.html'],
        },
        severity: 'Critical',
        evidence: expect.stringContaining('via injection in the parameter user\n\nRequest:\nPOST /login.php'),
      },
    ]);
    expect(findings[0]!.evidence).toMatch(/Response status: 500$/);
  });

  it('reads anomalies as findings and fingerprints as software', async () => {
    const anomaly = category(
      'anomaly',
      'Internal Server Error',
      entry({
        level: '3',
        path: '/search',
        parameter: 'q',
        info: 'The server responded with a 500 HTTP error code',
      }),
    );
    const fingerprint = category(
      'additional',
      'Fingerprint web technology',
      entry({
        level: '0',
        info: '{"name": "nginx", "versions": ["1.19.0"], "categories": ["Web servers"]}',
      }) + entry({ level: '0', info: '{"name": "jQuery", "versions": []}' }),
    );
    const other = category(
      'additional',
      'Subdomain takeover',
      entry({ level: '0', info: 'www is an alias' }),
    );
    const text = report(
      `<vulnerabilities/><anomalies>${anomaly}</anomalies><additionals>${fingerprint}${other}</additionals>`,
    );
    const { records, findings } = await parseText(wapitiImporter, text);
    expect(findings.map((f) => [f.vulnerability.ruleId, f.severity, f.location.parameter])).toEqual([
      ['Internal Server Error', 'High', 'q'],
      ['Subdomain takeover: www is an alias', 'Info', undefined],
    ]);
    const software = records.filter((r): r is SoftwareRecord => r.type === 'software');
    expect(software.map((s) => [s.name, s.version, s.asset.url])).toEqual([
      ['nginx', '1.19.0', 'http://shop.example:8080'],
      ['jQuery', undefined, 'http://shop.example:8080'],
    ]);
  });

  it('skips an entry without a usable URL, and says so', async () => {
    const bad = category('vulnerability', 'XSS', entry({ path: 'http://[bad', parameter: 'q' }));
    const { findings, warnings } = await parseText(
      wapitiImporter,
      report(`<vulnerabilities>${bad}</vulnerabilities>`),
    );
    expect(findings).toEqual([]);
    expect(warnings).toEqual(['1 Wapiti entries without a usable URL were skipped.']);
  });
});

describe('wapiti importer: severities', () => {
  it('maps levels as documented (Wapiti 3.0.4 and later)', () => {
    expect(WAPITI_SEVERITY).toMatchObject({
      '4': 'Critical',
      '3': 'High',
      '2': 'Medium',
      '1': 'Low',
      '0': 'Info',
    });
    expect(WAPITI_LEGACY_SEVERITY).toEqual({ '1': 'High', '2': 'Medium', '3': 'Low' });
  });

  it('reads levels by the scale of the Wapiti version that wrote them, and by name', async () => {
    const levels = (...values: string[]) =>
      category(
        'vulnerability',
        'Blind SQL Injection',
        values.map((level, i) => entry({ level, parameter: `p${i}` })).join(''),
      );
    const severities = async (version: string, ...values: string[]) =>
      (
        await parseText(
          wapitiImporter,
          report(`<vulnerabilities>${levels(...values)}</vulnerabilities>`, version),
        )
      ).findings.map((f) => f.severity);
    expect(await severities('Wapiti 3.0.3', '1', '2', '3')).toEqual(['High', 'Medium', 'Low']);
    expect(await severities('Wapiti 3.0.4', '1', '2', '3', '4', '0')).toEqual([
      'Low',
      'Medium',
      'High',
      'Critical',
      'Info',
    ]);
    expect(await severities('Wapiti 3.2.0', 'high', 'bogus')).toEqual(['High', 'Info']);
  });
});

describe('wapiti importer: detection', () => {
  // Every sample against every format, both ways: test/importers/registry.test.ts.
  it('knows a Wapiti report without the generator line by its layout', () => {
    const text = report(`<vulnerabilities>${category('vulnerability', 'XSS', '')}</vulnerabilities>`);
    const withoutGenerator = text.replace(/<info name="generatorName">.*\n/, '');
    expect(withoutGenerator).not.toContain('generatorName');
    expect(wapitiImporter.detect(withoutGenerator)).toBeGreaterThanOrEqual(0.8);
  });
});

describe('wapiti importer: bad input', () => {
  it('fails on truncated XML with the line and column', async () => {
    const text = report('<vulnerabilities><vulnerability name="XSS"><entries><entry><path>/</path>');
    const error = await failure(parseText(wapitiImporter, text.slice(0, text.lastIndexOf('</report>'))));
    expect(error.message).toMatch(/^Not well-formed XML/);
    expect(error.line).toBeGreaterThan(8);
    expect(error.column).toBeGreaterThan(0);
  });

  it('refuses an external entity (XXE)', async () => {
    const xss = category('vulnerability', 'XSS', entry({ info: '&xxe;' }));
    const text = report(`<vulnerabilities>${xss}</vulnerabilities>`).replace(
      '<report ',
      '<!DOCTYPE report [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n<report ',
    );
    expect((await failure(parseText(wapitiImporter, text))).message).toMatch(/declares a DTD/);
  });

  it('says an empty file is empty', async () => {
    expect((await failure(parseText(wapitiImporter, ''))).message).toMatch(/empty/);
  });

  it('says what is wrong with a file of another shape', async () => {
    const cases: [string, RegExp][] = [
      ['<nmaprun></nmaprun>', /root element is <nmaprun>/],
      ['{"vulnerabilities": []}', /not XML/],
      ['<report id="1" format_id="x"><results/></report>', /has no <vulnerabilities>/],
      [
        '<report type="security"><generatedBy id="Wapiti 2.3.0"/><vulnerabilityTypeList/></report>',
        /Wapiti 2 XML report/,
      ],
      [
        `<report><vulnerabilities>${category('vulnerability', 'XSS', entry({}))}</vulnerabilities></report>`,
        /names no target/,
      ],
    ];
    for (const [text, message] of cases)
      expect((await failure(parseText(wapitiImporter, text))).message, text).toMatch(message);
  });
});
