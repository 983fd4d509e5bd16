import { createReadStream } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { blankHarmlessDtd } from '../../src/importers/burp/doctype.js';
import { BURP_SEVERITY, burpImporter } from '../../src/importers/burp/index.js';
import { parameterOf } from '../../src/importers/burp/issue.js';
import { nmapImporter } from '../../src/importers/nmap/index.js';
import type { FindingRecord } from '../../src/importers/types.js';
import { zapImporter } from '../../src/importers/zap/index.js';
import { failure, fixturePath, head, manifestEntries, parseFixture, parseText } from './helpers.js';

/** A one-issue export in Burp's own layout (with its DTD), for the cases no sample has. */
function burpExport(issue: string): string {
  return `<?xml version="1.0"?>
<!DOCTYPE issues [
<!ELEMENT issues (issue*)>
<!ATTLIST issues burpVersion CDATA "">
<!ATTLIST request base64 (true|false) "false">
]>
<issues burpVersion="2023.10.3.4" exportTime="Tue Nov 21 10:00:00 UTC 2023">
  <issue>
    <serialNumber>1234567890</serialNumber>
    <host ip="203.0.113.7">https://app.example.com:8443/</host>
    <path><![CDATA[/api/items]]></path>
${issue}
  </issue>
</issues>`;
}

const SEVERITY_FROM_DOJO: Record<string, string> = {
  Info: 'Info',
  Low: 'Low',
  Medium: 'Medium',
  High: 'High',
};

describe('burp importer: DefectDojo samples', () => {
  // DefectDojo merges the issues of one type (same title and severity) into one finding with
  // many endpoints. Rampart keeps one finding per <issue>, as Burp reports them, and lets the
  // import service merge exact duplicates:
  // - seven_findings.xml holds 16 issues of 7 types (DefectDojo: 7);
  // - issue4399.xml holds 441 issues of 20 types (DefectDojo: 20).
  const rampartFindings: Record<string, number> = {
    'burp/seven_findings.xml': 16,
    'burp/issue4399.xml': 441,
  };

  for (const entry of manifestEntries('burp')) {
    const expected = rampartFindings[entry.file] ?? entry.expectedFindings;
    it(`${entry.file}: ${expected} findings (DefectDojo: ${entry.expectedFindings})`, async () => {
      const { findings } = await parseFixture(burpImporter, entry.file);
      expect(findings).toHaveLength(expected);
    });

    const first = entry.firstFinding;
    if (!first) continue;
    it(`${entry.file}: DefectDojo's first finding`, async () => {
      const { findings } = await parseFixture(burpImporter, entry.file);
      const match = first.unique_id_from_tool
        ? findings.find((f) => f.toolFindingId === first.unique_id_from_tool)
        : findings.find((f) => f.vulnerability.title === first.title);
      expect(match).toBeDefined();
      expect(match!.vulnerability.title).toBe(first.title);
      expect(match!.severity).toBe(SEVERITY_FROM_DOJO[first.severity as string]);
      expect(match!.vulnerability.ruleId).toBe(first.vuln_id_from_tool);
      if (first.cwe) expect(match!.vulnerability.cweIds).toEqual([`CWE-${first.cwe}`]);
      // One endpoint in DefectDojo: one URL location here.
      if (first.endpoint_count) expect(match!.location.kind).toBe('Url');
    });
  }
});

describe('burp importer: fields', () => {
  it('reads an issue whole: asset, location, texts, evidence', async () => {
    const { findings } = await parseFixture(burpImporter, 'burp/one_finding_with_blank_response.xml');
    const [finding] = findings as [FindingRecord];
    expect(finding.asset).toEqual({
      kind: 'WebApplication',
      url: 'http://bwa',
      ipAddresses: ['192.168.187.137'],
    });
    expect(finding.location).toEqual({
      kind: 'Url',
      url: 'http://bwa/bodgeit/basket.jsp',
      parameter: 'b_id',
    });
    expect(finding.toolFindingId).toBe('7121655797013284864');
    expect(finding.severity).toBe('High');
    const { description, solution } = finding.vulnerability;
    expect(description).toMatch(/^SQL injection vulnerabilities arise when user-controllable data/);
    expect(description).toContain('\n\nVarious attacks can be delivered');
    expect(description).not.toMatch(/<br>|<b>/);
    expect(solution).toContain('parameterize every variable');
    expect(solution).toContain('\n- One common defense is to double up');
    // The issue's own remedy, apart from the general remediation.
    expect(finding.fixedIn).toBe(
      'The application should handle errors gracefully and prevent SQL error messages from being returned in responses.',
    );
    // Evidence: the detail, the confidence and the decoded request; the blank response is left out.
    expect(finding.evidence).toMatch(/^The b_id cookie appears to be vulnerable to SQL injection attacks/);
    expect(finding.evidence).toContain('Confidence: Firm');
    expect(finding.evidence).toContain('Request:\nPOST /bodgeit/basket.jsp HTTP/1.1\nHost: bwa\n');
    expect(finding.evidence).toContain('update=Update+Basket&quantity_2=1');
    expect(finding.evidence).not.toContain('Response:');
  });

  it('maps Burp severities', async () => {
    expect(BURP_SEVERITY).toEqual({ High: 'High', Medium: 'Medium', Low: 'Low', Information: 'Info' });
    const { findings } = await parseFixture(burpImporter, 'burp/seven_findings.xml');
    const count = (severity: string) => findings.filter((f) => f.severity === severity).length;
    // The sample holds 5 High, 2 Low and 9 Information issues.
    expect([count('High'), count('Low'), count('Info')]).toEqual([5, 2, 9]);
  });

  it('reads CWE ids, references, CVE ids and Collaborator interactions of Burp 2021', async () => {
    const { findings } = await parseFixture(burpImporter, 'burp/issue4399.xml');
    const unencrypted = findings.find((f) => f.toolFindingId === '4060931308708695040')!;
    expect(unencrypted.vulnerability).toMatchObject({
      ruleId: '16777728',
      cweIds: ['CWE-326'],
      references: [
        'https://www.chromium.org/Home/chromium-security/marking-http-as-non-secure',
        'https://wiki.mozilla.org/Security/Server_Side_TLS',
        'https://developer.mozilla.org/en-US/docs/Web/Security/HTTP_strict_transport_security',
      ],
    });
    // Issues raised by extensions all share Burp's type 134217728: the name tells them apart.
    const vulners = findings.find((f) => f.toolFindingId === '7206520953207059456')!;
    expect(vulners.vulnerability.ruleId).toBe('134217728:[Vulners] Vulnerable Software detected');
    expect(vulners.vulnerability.cveIds).toEqual(['CVE-2018-19396', 'CVE-2018-19395']);
    const dns = findings.find((f) => f.toolFindingId === '3995580356982784')!;
    expect(dns.evidence).toContain(
      'Collaborator DNS interaction from 18.196.161.188 at 2021-Apr-28 08:59:24 UTC (lookup of vzywx77eghpxc7f4o524dqe12s8mwfv3lrce22r.burpcollaborator.net)',
    );
    const xss = findings.filter((f) => f.vulnerability.cweIds?.includes('CWE-79'));
    expect(xss.length).toBeGreaterThan(0);
    expect(findings.filter((f) => f.location.parameter === 'artist')).toHaveLength(4);
  });

  it('names the input from the location', () => {
    expect(parameterOf('/bodgeit/basket.jsp [b_id cookie]')).toBe('b_id');
    expect(parameterOf('/artists.php [artist parameter]')).toBe('artist');
    expect(parameterOf('/ [Referer HTTP header]')).toBe('Referer');
    expect(parameterOf('/comment.php [name XML attribute within the name parameter]')).toBe(
      'name XML attribute within the name parameter',
    );
    expect(parameterOf('/x [URL path filename]')).toBe('URL path filename');
    expect(parameterOf('/bodgeit/')).toBeUndefined();
  });

  it('keeps a false positive as such, and the site of a host with a port', async () => {
    const { findings } = await parseText(
      burpImporter,
      burpExport(`    <type>5244416</type>
    <name>Cookie without HttpOnly flag set</name>
    <location><![CDATA[/api/items [session cookie]]]></location>
    <severity>False positive</severity>
    <confidence>Certain</confidence>`),
    );
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({
      asset: { kind: 'WebApplication', url: 'https://app.example.com:8443', ipAddresses: ['203.0.113.7'] },
      location: { kind: 'Url', url: 'https://app.example.com:8443/api/items', parameter: 'session' },
      severity: 'Info',
      state: { state: 'FalsePositive' },
    });
  });

  it('cuts evidence to the limit with a marker', async () => {
    const findings: FindingRecord[] = [];
    const context = { warn: () => {}, maxEvidenceChars: 200, maxFieldChars: 100 };
    const input = createReadStream(fixturePath('burp/seven_findings.xml'));
    for await (const r of burpImporter.parse(input, context)) if (r.type === 'finding') findings.push(r);
    expect(findings).toHaveLength(16);
    for (const f of findings) {
      expect(f.evidence!.length).toBeLessThanOrEqual(200);
      expect(f.vulnerability.description!.length).toBeLessThanOrEqual(100);
    }
    expect(findings[0]!.evidence).toHaveLength(200);
    expect(findings[0]!.evidence!.endsWith('… [truncated]')).toBe(true);
  });
});

describe('burp importer: detection', () => {
  for (const entry of manifestEntries('burp'))
    it(`claims ${entry.file}`, () =>
      expect(burpImporter.detect(head(entry.file))).toBeGreaterThanOrEqual(0.8));

  it('leaves other formats alone', () => {
    expect(burpImporter.detect(head('nmap/nmap_multiple_port.xml'))).toBeLessThan(0.3);
    expect(burpImporter.detect(head('zap/some_2.9.0.xml'))).toBeLessThan(0.3);
    expect(burpImporter.detect(head('zap/handmade-traditional.json'))).toBeLessThan(0.3);
    const nessus =
      '<?xml version="1.0" ?>\n<NessusClientData_v2>\n<Report name="scan">\n<ReportHost name="10.0.0.1">';
    expect(burpImporter.detect(nessus)).toBeLessThan(0.3);
  });

  it('is not claimed by the other importers', () => {
    for (const entry of manifestEntries('burp')) {
      expect(nmapImporter.detect(head(entry.file))).toBeLessThan(0.3);
      expect(zapImporter.detect(head(entry.file))).toBeLessThan(0.3);
    }
  });
});

describe('burp importer: its DTD and bad input', () => {
  it("blanks Burp's declaration-only DTD, keeping lines and columns", () => {
    const text = head('burp/one_finding_with_blank_response.xml');
    const blanked = blankHarmlessDtd(text);
    expect(blanked).toHaveLength(text.length);
    expect(blanked.split('\n').length).toBe(text.split('\n').length);
    expect(blanked).not.toContain('<!ELEMENT');
    expect(blanked.slice(blanked.indexOf('<issues'))).toBe(text.slice(text.indexOf('<issues')));
  });

  it('leaves any DTD with an entity, notation or parameter entity to be refused', () => {
    for (const declaration of [
      '<!ENTITY x "y">',
      '<!NOTATION n SYSTEM "x">',
      '<!ELEMENT issues %content;>',
      '<!ATTLIST issues a CDATA "&x;">',
      '<?pi x?>',
    ]) {
      const text = `<?xml version="1.0"?>\n<!DOCTYPE issues [\n<!ELEMENT issue (name)>\n${declaration}\n]>\n<issues/>`;
      expect(blankHarmlessDtd(text)).toBe(text);
    }
  });

  it('fails on a truncated export with the line and column', async () => {
    const error = await failure(parseFixture(burpImporter, 'burp/hostile-truncated.xml'));
    expect(error.message).toMatch(/^Not well-formed XML/);
    // The file ends inside line 60, in an unclosed <requestresponse>.
    expect(error.line).toBe(60);
    expect(error.column).toBeGreaterThan(0);
  });

  it('points at the right line after the blanked DTD', async () => {
    // Line 12 of the export: the first line after <path>.
    const error = await failure(parseText(burpImporter, burpExport('    <type>5244416</typo>')));
    expect(error.message).toMatch(/^Not well-formed XML/);
    expect(error.line).toBe(12);
  });

  it('refuses an external entity (XXE) among Burp declarations', async () => {
    expect((await failure(parseFixture(burpImporter, 'burp/hostile-xxe.xml'))).message).toMatch(
      /declares a DTD/,
    );
  });

  it('refuses entity expansion (billion laughs)', async () => {
    const error = await failure(parseFixture(burpImporter, 'burp/hostile-billion-laughs.xml'));
    expect(error.message).toMatch(/declares a DTD/);
  });

  it('says an empty file is empty', async () => {
    expect((await failure(parseText(burpImporter, ''))).message).toMatch(/empty/);
  });

  it('says when the file is not a Burp export', async () => {
    expect((await failure(parseText(burpImporter, '[]'))).message).toMatch(/not "<"/);
    const wrongRoot = await failure(parseFixture(burpImporter, 'nmap/nmap_multiple_port.xml'));
    expect(wrongRoot.message).toMatch(/root element is <nmaprun>/);
  });
});
