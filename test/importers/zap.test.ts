import { createReadStream } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { burpImporter } from '../../src/importers/burp/index.js';
import { nmapImporter } from '../../src/importers/nmap/index.js';
import type { FindingRecord } from '../../src/importers/types.js';
import { ZAP_SEVERITY, zapImporter } from '../../src/importers/zap/index.js';
import { failure, fixturePath, head, manifestEntries, parseFixture, parseText } from './helpers.js';

const JSON_REPORT = 'zap/handmade-traditional.json';

describe('zap importer: DefectDojo samples', () => {
  // DefectDojo makes one finding per alert, with its instances as endpoints. Rampart makes one
  // finding per instance (URI + parameter + evidence), so the counts are the instances:
  // - 0_zap_sample.xml: 4 alerts (a fifth is commented out) with 3 + 4 + 1 + 4 instances;
  // - 2_zap_sample_0_and_new_endpoint.xml: the same plus one instance on othersite.com;
  // - 5_zap_sample_one.xml: 2 alerts of 3 instances each;
  // - some_2.9.0.xml: 7 alerts with 17 instances.
  // DefectDojo's count is still there: the distinct alerts (rule id and title) of our findings.
  const rampartFindings: Record<string, number> = {
    'zap/0_zap_sample.xml': 12,
    'zap/2_zap_sample_0_and_new_endpoint.xml': 13,
    'zap/5_zap_sample_one.xml': 6,
    'zap/some_2.9.0.xml': 17,
  };

  for (const entry of manifestEntries('zap')) {
    const expected = rampartFindings[entry.file] ?? entry.expectedFindings;
    it(`${entry.file}: ${expected} findings (DefectDojo: ${entry.expectedFindings} alerts)`, async () => {
      const { findings } = await parseFixture(zapImporter, entry.file);
      expect(findings).toHaveLength(expected);
      const alerts = new Set(findings.map((f) => `${f.vulnerability.ruleId} ${f.vulnerability.title}`));
      expect(alerts.size).toBe(entry.expectedFindings);
    });
  }

  it("zap-xml-plus-format.xml: DefectDojo's first finding", async () => {
    const entry = manifestEntries('zap').find((e) => e.file === 'zap/zap-xml-plus-format.xml')!;
    const { findings } = await parseFixture(zapImporter, entry.file);
    const match = findings.find((f) => f.vulnerability.title === entry.firstFinding!.title)!;
    expect(match).toMatchObject({
      severity: 'Medium',
      vulnerability: { ruleId: '90028', title: 'Insecure HTTP Method - PUT', cweIds: ['CWE-200'] },
      // Endpoint http://localhost:8080 in DefectDojo.
      asset: { kind: 'WebApplication', url: 'http://localhost:8080' },
      location: { kind: 'Url', url: 'http://localhost:8080/bodgeit/js/qndto7n63d' },
    });
  });
});

describe('zap importer: XML fields', () => {
  it('reads alerts of ZAP 2.9 with each instance as a finding', async () => {
    const { findings } = await parseFixture(zapImporter, 'zap/0_zap_sample.xml');
    const [first] = findings as [FindingRecord];
    expect(first).toEqual({
      type: 'finding',
      asset: { kind: 'WebApplication', url: 'https://mainsite.com' },
      vulnerability: {
        ruleId: '10011',
        title: 'zap1: Cookie Without Secure Flag',
        description:
          'A cookie has been set without the secure flag, which means that the cookie can be accessed via unencrypted connections.',
        solution:
          'Whenever a cookie contains sensitive information or is a session token, then it should always be passed using an encrypted channel. Ensure that the secure flag is set for cookies containing such sensitive information.',
        cweIds: ['CWE-614'],
        references: ['http://www.owasp.org/index.php/Testing_for_cookies_attributes_(OWASP-SM-002)'],
      },
      location: { kind: 'Url', url: 'https://mainsite.com/dashboard', parameter: 'opvc' },
      severity: 'Low',
      evidence: 'Method: GET\nParameter: opvc\nEvidence: Set-Cookie: opvc',
    });
    // ZAP 2.9 glued the reference links together; they are split again.
    const csp = findings.find((f) => f.vulnerability.ruleId === '10055')!;
    expect(csp.severity).toBe('Medium');
    expect(csp.vulnerability.references).toEqual([
      'http://www.w3.org/TR/CSP2/',
      'http://www.w3.org/TR/CSP/',
      'http://caniuse.com/#search=content+security+policy',
      'http://content-security-policy.com/',
      'https://github.com/shapesecurity/salvation',
    ]);
    // No parameter: the location is the URL alone; the alert's other info is evidence.
    const timestamp = findings.filter((f) => f.vulnerability.ruleId === '10096');
    expect(timestamp).toHaveLength(4);
    expect(timestamp[0]!.location).toEqual({ kind: 'Url', url: 'https://mainsite.com' });
    expect(timestamp[0]!.evidence).toContain(
      'Other info: 265151019, which evaluates to: 1978-05-27 22:03:39',
    );
  });

  it('turns the HTML of ZAP 2.9 texts into plain text', async () => {
    const { findings } = await parseFixture(zapImporter, 'zap/some_2.9.0.xml');
    const [first] = findings;
    expect(first!.vulnerability.description).toBe(
      'A cookie has been set without the secure flag, which means that the cookie can be accessed via unencrypted connections.',
    );
    expect(first!.vulnerability.references).toEqual([
      'http://www.owasp.org/index.php/Testing_for_cookies_attributes_(OWASP-SM-002)',
    ]);
    for (const f of findings) expect(f.vulnerability.description).not.toMatch(/<\/?p>/);
    expect(findings.filter((f) => f.severity === 'Info').length).toBeGreaterThan(0);
  });

  it('keeps the site as the asset even for an instance on another host', async () => {
    const { findings } = await parseFixture(zapImporter, 'zap/2_zap_sample_0_and_new_endpoint.xml');
    const other = findings.find((f) => f.location.url === 'https://othersite.com')!;
    expect(other.asset).toEqual({ kind: 'WebApplication', url: 'https://mainsite.com' });
    expect(other.evidence).toContain('Set-Cookie: NEW_END_POINT');
  });

  it('adds the request and response of the xml-plus variant to the evidence', async () => {
    const [finding] = (await parseFixture(zapImporter, 'zap/zap-xml-plus-format.xml')).findings;
    expect(finding!.evidence).toContain(
      'Method: PUT\nEvidence: response code 403 for potentially insecure HTTP METHOD',
    );
    expect(finding!.evidence).toContain(
      'Request:\nPUT http://localhost:8080/bodgeit/js/qndto7n63d HTTP/1.1\n',
    );
    expect(finding!.evidence).toContain('"J0O0glajHdR0Mgp":"UToh9IpCY5zh3CB"');
    expect(finding!.evidence).toContain('Response:\nHTTP/1.1 403 Forbidden\n');
    expect(finding!.evidence).toContain('<h1>HTTP Status 403 - </h1>');
  });

  it('cuts evidence to the limit with a marker', async () => {
    const findings: FindingRecord[] = [];
    const warnings: string[] = [];
    const context = { warn: (m: string) => warnings.push(m), maxEvidenceChars: 120, maxFieldChars: 50 };
    const input = createReadStream(fixturePath('zap/zap-xml-plus-format.xml'));
    for await (const r of zapImporter.parse(input, context)) if (r.type === 'finding') findings.push(r);
    expect(findings[0]!.evidence).toHaveLength(120);
    expect(findings[0]!.evidence!.endsWith('… [truncated]')).toBe(true);
    expect(findings[0]!.vulnerability.description).toHaveLength(50);
    expect(warnings).toContain('Some evidence texts were longer than 120 characters and were cut.');
  });
});

describe('zap importer: JSON report', () => {
  it('reads every instance of every site', async () => {
    const { findings, warnings } = await parseFixture(zapImporter, JSON_REPORT);
    expect(warnings).toEqual([]);
    expect(
      findings.map((f) => [f.asset.url, f.vulnerability.ruleId, f.severity, f.location.parameter]),
    ).toEqual([
      ['https://shop.example.com', '40012', 'High', 'q'],
      ['https://shop.example.com', '40012', 'High', 'returnUrl'],
      // The alert reference names one of the alerts a plugin raises.
      ['https://shop.example.com', '10038-1', 'Medium', undefined],
      ['https://shop.example.com', '10038-1', 'Medium', undefined],
      ['https://shop.example.com', '10038-1', 'Medium', undefined],
      ['https://shop.example.com', '10020-1', 'Medium', 'x-frame-options'],
      ['https://shop.example.com', '10021', 'Low', 'x-content-type-options'],
      ['https://shop.example.com', '10027', 'Info', undefined],
      ['http://localhost:8080', '10036', 'Low', undefined],
    ]);
  });

  it('reads the fields of an alert and its instance', async () => {
    const [xss] = (await parseFixture(zapImporter, JSON_REPORT)).findings;
    expect(xss).toMatchObject({
      asset: { kind: 'WebApplication', url: 'https://shop.example.com' },
      location: {
        kind: 'Url',
        url: 'https://shop.example.com/search?q=%3C%2Fp%3E%3CscrIpt%3Ealert%281%29%3B%3C%2FscRipt%3E%3Cp%3E',
        parameter: 'q',
      },
      toolFindingId: '1187',
      vulnerability: {
        title: 'Cross Site Scripting (Reflected)',
        cweIds: ['CWE-79'],
        references: [
          'https://owasp.org/www-community/attacks/xss/',
          'https://cwe.mitre.org/data/definitions/79.html',
        ],
      },
    });
    expect(xss!.vulnerability.description).toMatch(/^Cross-site Scripting \(XSS\) is an attack technique/);
    expect(xss!.vulnerability.description).toContain("\n\nWhen an attacker gets a user's browser");
    expect(xss!.vulnerability.solution).toMatch(/^Phase: Architecture and Design\n\nUse a vetted library/);
    expect(xss!.evidence).toBe(
      'Method: GET\nParameter: q\nAttack: </p><scrIpt>alert(1);</scRipt><p>\nEvidence: </p><scrIpt>alert(1);</scRipt><p>',
    );
  });

  it("prefers the instance's other info and keeps ZAP's false-positive mark", async () => {
    const { findings } = await parseFixture(zapImporter, JSON_REPORT);
    const sniffing = findings.find((f) => f.vulnerability.ruleId === '10021')!;
    expect(sniffing.evidence).toContain('Other info: This issue still applies to error type pages');
    expect(sniffing.state).toBeUndefined();
    const server = findings.find((f) => f.vulnerability.ruleId === '10036')!;
    expect(server.state).toEqual({ state: 'FalsePositive', reason: 'Marked as a false positive in ZAP.' });
    expect(server.vulnerability.cweIds).toEqual(['CWE-497']);
  });

  it('reads the single-site object of older reports', async () => {
    const old = {
      '@version': '2.7.0',
      '@generated': 'Mon, 4 Mar 2019 10:00:00',
      site: {
        '@name': 'http://[::1]:3000',
        '@host': '::1',
        '@port': '3000',
        '@ssl': 'false',
        alerts: [
          {
            pluginid: '10202',
            alert: 'Absence of Anti-CSRF Tokens',
            riskcode: '1',
            instances: { uri: 'http://[::1]:3000/login', method: 'GET' },
          },
        ],
      },
    };
    const { findings } = await parseText(zapImporter, JSON.stringify(old));
    expect(findings).toHaveLength(1);
    expect(findings[0]!.asset.url).toBe('http://[::1]:3000');
    expect(findings[0]!.location.url).toBe('http://[::1]:3000/login');
  });

  it("takes the instance's origin when the site is not known", async () => {
    const report = {
      site: [
        {
          alerts: [
            { pluginid: '10021', riskdesc: 'Low (Medium)', instances: [{ uri: 'https://a.example:8443/x' }] },
          ],
        },
      ],
    };
    const { findings } = await parseText(zapImporter, JSON.stringify(report));
    expect(findings[0]).toMatchObject({ asset: { url: 'https://a.example:8443' }, severity: 'Low' });
  });
});

describe('zap importer: severities', () => {
  it('maps risk codes as documented', () => {
    expect(ZAP_SEVERITY).toEqual({ 0: 'Info', 1: 'Low', 2: 'Medium', 3: 'High' });
  });
});

describe('zap importer: detection', () => {
  for (const entry of manifestEntries('zap'))
    it(`claims ${entry.file}`, () =>
      expect(zapImporter.detect(head(entry.file))).toBeGreaterThanOrEqual(0.8));

  it('claims the JSON report, with or without @programName', () => {
    expect(zapImporter.detect(head(JSON_REPORT))).toBeGreaterThanOrEqual(0.8);
    const older =
      '{"@version":"2.10.0","@generated":"Tue, 1 Jun 2021","site":[{"@name":"http://a","alerts":[{"pluginid":"1","riskcode":"1"}]}]}';
    expect(zapImporter.detect(older)).toBeGreaterThanOrEqual(0.8);
  });

  it('leaves other formats alone', () => {
    expect(zapImporter.detect(head('nmap/issue12411.xml'))).toBeLessThan(0.3);
    expect(zapImporter.detect(head('burp/seven_findings.xml'))).toBeLessThan(0.3);
    const nessus = '<?xml version="1.0" ?>\n<NessusClientData_v2>\n<Report name="scan">';
    const trivy =
      '{"SchemaVersion": 2, "ArtifactName": "alpine:3.18", "ArtifactType": "container_image", "Results": []}';
    const sarif =
      '{"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0", "runs": []}';
    for (const other of [nessus, trivy, sarif]) expect(zapImporter.detect(other)).toBeLessThan(0.3);
  });

  it('is not claimed by the other importers', () => {
    for (const file of [...manifestEntries('zap').map((e) => e.file), JSON_REPORT]) {
      expect(nmapImporter.detect(head(file))).toBeLessThan(0.3);
      expect(burpImporter.detect(head(file))).toBeLessThan(0.3);
    }
  });
});

describe('zap importer: bad input', () => {
  it('fails on truncated XML with the line and column', async () => {
    const error = await failure(parseFixture(zapImporter, 'zap/hostile-truncated.xml'));
    expect(error.message).toMatch(/^Not well-formed XML/);
    expect(error.line).toBe(66);
    expect(error.column).toBeGreaterThan(0);
  });

  it('refuses an external entity (XXE)', async () => {
    expect((await failure(parseFixture(zapImporter, 'zap/hostile-xxe.xml'))).message).toMatch(
      /declares a DTD/,
    );
  });

  it('refuses entity expansion (billion laughs)', async () => {
    const error = await failure(parseFixture(zapImporter, 'zap/hostile-billion-laughs.xml'));
    expect(error.message).toMatch(/declares a DTD/);
  });

  it('says an empty file is empty', async () => {
    expect((await failure(parseText(zapImporter, ''))).message).toMatch(/empty/);
    expect((await failure(parseText(zapImporter, '\n  \n'))).message).toMatch(/empty/);
  });

  it('says what is wrong with a JSON report of another shape', async () => {
    const cases: [string, RegExp][] = [
      ['{"@version": "2.15.0", "alerts": []}', /no "site" list at the top level/],
      ['[{"site": []}]', /top level is a list/],
      ['{"site": [{"@name": "http://a", "alerts": {"pluginid": "1"}}]}', /"alerts" is not a list/],
      ['{"site": [{"@name": "http://a", "alerts": ["10021"]}]}', /alert 0 of site 0 is not an object/],
      ['{"site": [{"@name": "http://a", "alerts": [{"pluginid": "1"', /Not valid JSON/],
    ];
    for (const [text, message] of cases) {
      const error = await failure(parseText(zapImporter, text));
      expect(error.message).toMatch(message);
    }
  });

  it('says when the file is neither XML nor JSON, or XML of another tool', async () => {
    expect((await failure(parseText(zapImporter, 'Site,Alert\n'))).message).toMatch(/neither XML nor JSON/);
    const wrongRoot = await failure(parseFixture(zapImporter, 'nmap/nmap_multiple_port.xml'));
    expect(wrongRoot.message).toMatch(/root element is <nmaprun>/);
  });

  it('reads an empty report as no findings', async () => {
    expect((await parseFixture(zapImporter, 'zap/empty_2.9.0.xml')).records).toEqual([]);
    expect((await parseText(zapImporter, '{"@version": "2.15.0", "site": []}')).records).toEqual([]);
  });
});
