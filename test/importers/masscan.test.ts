import { describe, expect, it } from 'vitest';
import { MASSCAN_SEVERITY, masscanImporter } from '../../src/importers/masscan/index.js';
import { assets, failure, head, manifestEntries, parseFixture, parseText, services } from './helpers.js';

/**
 * masscan finds no vulnerabilities: DefectDojo turns each open port into an Info finding
 * ("Open port: 80/tcp on 172.29.0.3"), Rampart keeps open ports as services of the host. So the
 * manifest's expectedFindings is compared with the number of service records, and no sample
 * yields a finding.
 */
describe('masscan importer: DefectDojo samples', () => {
  for (const entry of manifestEntries('masscan')) {
    it(`${entry.file}: ${entry.expectedFindings} open ports as services (DefectDojo's findings)`, async () => {
      const { records, findings, warnings } = await parseFixture(masscanImporter, entry.file);
      expect(findings).toEqual([]);
      expect(services(records)).toHaveLength(entry.expectedFindings);
      expect(assets(records)).toEqual([
        { type: 'asset', asset: { kind: 'Host', ipAddresses: ['172.29.0.3'] } },
      ]);
      expect(warnings).toEqual([]);
    });
  }

  it('masscan_one_vuln.json: port 80/tcp on 172.29.0.3 (as DefectDojo)', async () => {
    const { records } = await parseFixture(masscanImporter, 'masscan/masscan_one_vuln.json');
    expect(services(records)).toEqual([
      { type: 'service', asset: { kind: 'Host', ipAddresses: ['172.29.0.3'] }, port: 80, protocol: 'tcp' },
    ]);
  });

  it('masscan_many_vuln.json: ports 80, 3000, 8080, 8443 (as DefectDojo)', async () => {
    const { records } = await parseFixture(masscanImporter, 'masscan/masscan_many_vuln.json');
    expect(
      services(records)
        .map((s) => s.port)
        .sort((a, b) => a - b),
    ).toEqual([80, 3000, 8080, 8443]);
  });

  it('reads banners, passes over closed ports, repeats and the old "finished" entry', async () => {
    const report = JSON.stringify([
      {
        ip: '10.0.0.5',
        timestamp: '1',
        ports: [{ port: 22, proto: 'tcp', status: 'open', reason: 'syn-ack', ttl: 64 }],
      },
      {
        ip: '10.0.0.5',
        timestamp: '1',
        ports: [{ port: 22, proto: 'tcp', status: 'open', reason: 'syn-ack', ttl: 64 }],
      },
      {
        ip: '10.0.0.5',
        timestamp: '2',
        ports: [{ port: 22, proto: 'tcp', service: { name: 'ssh', banner: 'SSH-2.0-OpenSSH_9.6' } }],
      },
      {
        ip: '10.0.0.6',
        timestamp: '1',
        ports: [{ port: 53, proto: 'udp', status: 'closed', reason: 'none', ttl: 0 }],
      },
      { finished: 1 },
    ]);
    const { records } = await parseText(masscanImporter, report);
    expect(services(records)).toEqual([
      { type: 'service', asset: { kind: 'Host', ipAddresses: ['10.0.0.5'] }, port: 22, protocol: 'tcp' },
      {
        type: 'service',
        asset: { kind: 'Host', ipAddresses: ['10.0.0.5'] },
        port: 22,
        protocol: 'tcp',
        name: 'ssh',
        banner: 'SSH-2.0-OpenSSH_9.6',
      },
    ]);
    expect(assets(records).map((a) => a.asset.ipAddresses)).toEqual([['10.0.0.5'], ['10.0.0.6']]);
  });

  it('reads NDJSON output', async () => {
    const lines = [
      '{"ip":"10.0.0.7","timestamp":"1","port":443,"proto":"tcp","rec_type":"status","data":{"status":"open","reason":"syn-ack","ttl":64}}',
      '{"ip":"10.0.0.7","timestamp":"2","port":443,"proto":"tcp","rec_type":"banner","data":{"service_name":"ssl","banner":"TLS/1.2"}}',
    ].join('\n');
    expect(masscanImporter.detect(lines)).toBeGreaterThanOrEqual(0.8);
    const { records } = await parseText(masscanImporter, lines);
    expect(services(records).map((s) => [s.port, s.name])).toEqual([
      [443, undefined],
      [443, 'ssl'],
    ]);
  });

  it('documents that it rates nothing', () => {
    expect(MASSCAN_SEVERITY).toEqual({});
  });
});

describe('masscan importer: detection', () => {
  for (const entry of manifestEntries('masscan')) {
    it(`${entry.file} is claimed as masscan (the registry test checks no other format claims it)`, () => {
      const text = head(entry.file);
      expect(masscanImporter.detect(text)).toBeGreaterThanOrEqual(0.8);
    });
  }

  it('does not claim other JSON reports', () => {
    for (const file of [
      'trivy/scheme_2_many_vulns.json',
      'sarif/appendix_k.sarif',
      'generic/generic_report1.json',
      'gitleaks/gitleaks8_many.json',
      'semgrep/one_finding.json',
      'npm_audit/one_vuln.json',
      'npm_audit_7_plus/one_vuln.json',
    ])
      expect(masscanImporter.detect(head(file)), file).toBeLessThan(0.5);
  });
});

describe('masscan importer: bad input', () => {
  it('reads a scan that found nothing (`[ ]`) as an empty report', async () => {
    expect((await parseText(masscanImporter, '[\n]\n')).records).toEqual([]);
  });

  it('fails on an empty file (masscan -oJ always writes the brackets)', async () => {
    expect((await failure(parseText(masscanImporter, ''))).message).toMatch(/empty/);
  });

  it('fails on malformed JSON', async () => {
    await failure(parseText(masscanImporter, '[{"ip": "10.0.0.1", "ports": [ '));
  });

  it('fails on JSON of another shape', async () => {
    for (const text of ['[{"RuleID": "x"}]', '{"results": []}', '"x"'])
      expect((await failure(parseText(masscanImporter, text))).message, text).toMatch(/not a masscan/);
  });
});
