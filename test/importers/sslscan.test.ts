import { describe, expect, it } from 'vitest';
import { IMPORTERS } from '../../src/importers/index.js';
import { SSLSCAN_SEVERITY, sslscanImporter } from '../../src/importers/sslscan/index.js';
import { failure, head, manifestEntries, parseFixture, parseText } from './helpers.js';

const OTHER_SAMPLES = [
  'nikto/nikto-output.xml',
  'nikto/issue_9274.json',
  'testssl/defectdojo_many_vuln.csv',
  'dependency_check/PR6439.xml',
  'nmap/issue12411.xml',
];

const HOST = { kind: 'Host', hostname: 'www.target.com' };

function report(body: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<document title="SSLScan Results" version="2.0.15" web="http://github.com/rbsec/sslscan">\n <ssltest host="10.0.0.7" sniname="a.example" port="8443">\n${body}\n </ssltest>\n</document>\n`;
}

describe('sslscan importer: DefectDojo samples', () => {
  // sslscan_many_vuln.xml is sslscan_one_vuln.xml with one cipher changed to status "not
  // accepted", strength "weak". DefectDojo reports that cipher (2 findings); a cipher the server
  // does not accept is not a weakness of the server, so Rampart reports only Heartbleed (1).
  const rampartFindings: Record<string, number> = { 'sslscan/sslscan_many_vuln.xml': 1 };
  for (const entry of manifestEntries('sslscan')) {
    const expected = rampartFindings[entry.file] ?? entry.expectedFindings;
    it(`${entry.file}: ${expected} findings (DefectDojo: ${entry.expectedFindings})`, async () => {
      const { findings, warnings } = await parseFixture(sslscanImporter, entry.file);
      expect(findings).toHaveLength(expected);
      expect(warnings).toEqual([]);
    });
  }

  it('reads Heartbleed on the host and port', async () => {
    const [finding] = (await parseFixture(sslscanImporter, 'sslscan/sslscan_one_vuln.xml')).findings;
    expect(finding).toEqual({
      type: 'finding',
      asset: HOST,
      location: { kind: 'Port', port: 443, protocol: 'tcp' },
      vulnerability: {
        ruleId: 'heartbleed',
        title: 'Heartbleed',
        cveIds: ['CVE-2014-0160'],
        description:
          'The server is vulnerable to Heartbleed (CVE-2014-0160): an attacker can read server memory, including private keys.',
      },
      severity: 'High',
      evidence: 'Vulnerable: TLSv1.0',
    });
  });

  it('reads offered weak ciphers, obsolete protocols, renegotiation and compression', async () => {
    const body = [
      '<protocol type="ssl" version="3" enabled="1" />',
      '<protocol type="tls" version="1.0" enabled="1" />',
      '<protocol type="tls" version="1.2" enabled="1" />',
      '<protocol type="ssl" version="2" enabled="0" />',
      '<renegotiation supported="1" secure="0" />',
      '<compression supported="1" />',
      '<cipher status="accepted" sslversion="TLSv1.0" bits="56" cipher="DES-CBC-SHA" id="0x09" strength="weak" />',
      '<cipher status="preferred" sslversion="TLSv1.2" bits="0" cipher="NULL-SHA" id="0x02" strength="null" />',
      '<cipher status="accepted" sslversion="TLSv1.2" bits="112" cipher="DES-CBC3-SHA" id="0x0A" strength="medium" />',
      '<cipher status="accepted" sslversion="TLSv1.2" bits="256" cipher="AES256-SHA" id="0x35" strength="strong" />',
    ].join('\n');
    const { findings } = await parseText(sslscanImporter, report(body));
    expect(findings.map((f) => [f.vulnerability.ruleId, f.severity])).toEqual([
      ['weak-cipher', 'Medium'],
      ['weak-cipher', 'High'],
      ['weak-cipher', 'Low'],
      ['obsolete-protocol-sslv3', 'High'],
      ['obsolete-protocol-tlsv1.0', 'Medium'],
      ['insecure-renegotiation', 'Medium'],
      ['tls-compression', 'Medium'],
    ]);
    expect(findings[0]).toMatchObject({
      asset: { kind: 'Host', ipAddresses: ['10.0.0.7'] },
      location: { kind: 'Port', port: 8443, protocol: 'tcp' },
      vulnerability: { title: 'Weak cipher suite: DES-CBC-SHA (TLSv1.0)' },
      evidence: 'accepted TLSv1.0 56 bits DES-CBC-SHA (strength: weak)',
    });
  });
});

describe('sslscan importer: severities', () => {
  it('maps as documented', () => {
    expect(SSLSCAN_SEVERITY).toEqual({
      heartbleed: 'High',
      nullCipher: 'High',
      anonymousCipher: 'High',
      weakCipher: 'Medium',
      mediumCipher: 'Low',
      sslProtocol: 'High',
      oldTlsProtocol: 'Medium',
      insecureRenegotiation: 'Medium',
      compression: 'Medium',
    });
  });
});

describe('sslscan importer: detection', () => {
  for (const entry of manifestEntries('sslscan'))
    it(`claims ${entry.file}`, () =>
      expect(sslscanImporter.detect(head(entry.file))).toBeGreaterThanOrEqual(0.8));

  it("leaves other formats' samples alone", () => {
    for (const file of OTHER_SAMPLES) expect(sslscanImporter.detect(head(file)), file).toBeLessThan(0.5);
  });

  it('is not claimed by the other importers', () => {
    for (const entry of manifestEntries('sslscan'))
      for (const other of IMPORTERS.filter((i) => i.format !== 'sslscan'))
        expect(other.detect(head(entry.file)), `${other.format} on ${entry.file}`).toBeLessThan(0.5);
  });
});

describe('sslscan importer: bad input', () => {
  it('fails on truncated XML with the line and column', async () => {
    const text = report('<heartbleed sslversion="TLSv1.2" vulnerable="1" />').slice(0, -40);
    const error = await failure(parseText(sslscanImporter, text));
    expect(error.message).toMatch(/^Not well-formed XML/);
    expect(error.line).toBeGreaterThan(3);
    expect(error.column).toBeGreaterThan(0);
  });

  it('refuses an external entity (XXE)', async () => {
    const text = `<?xml version="1.0"?>\n<!DOCTYPE document [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n<document><ssltest host="&xxe;" port="443"/></document>`;
    expect((await failure(parseText(sslscanImporter, text))).message).toMatch(/declares a DTD/);
  });

  it('says an empty file is empty', async () => {
    expect((await failure(parseText(sslscanImporter, ''))).message).toMatch(/empty/);
  });

  it('says when the file is not an sslscan XML report', async () => {
    expect((await failure(parseText(sslscanImporter, 'id,host\n'))).message).toMatch(/not XML/);
    const wrongRoot = await failure(parseFixture(sslscanImporter, 'nikto/tdh.xml'));
    expect(wrongRoot.message).toMatch(/root element is <niktoscan>/);
  });

  it('skips a test without a host, with a warning', async () => {
    const text = '<document><ssltest port="443"><compression supported="1"/></ssltest></document>';
    const { findings, warnings } = await parseText(sslscanImporter, text);
    expect(findings).toEqual([]);
    expect(warnings).toEqual(['An <ssltest> without a host or port was skipped.']);
  });
});
