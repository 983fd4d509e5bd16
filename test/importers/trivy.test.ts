import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cyclonedxImporter } from '../../src/importers/cyclonedx/index.js';
import { grypeImporter } from '../../src/importers/grype/index.js';
import { osvScannerImporter } from '../../src/importers/osv-scanner/index.js';
import { TRIVY_SEVERITY, trivyImporter } from '../../src/importers/trivy/index.js';
import type { FindingRecord } from '../../src/importers/types.js';
import {
  failure,
  fixturePath,
  head,
  manifestEntries,
  type Parsed,
  parseFixture,
  parseText,
} from './helpers.js';

function byId(findings: FindingRecord[], id: string): FindingRecord {
  const found = findings.find((f) => f.vulnerability.ruleId === id);
  expect(found, `a finding for ${id}`).toBeDefined();
  return found!;
}

/** A schema 2 report around one result, for the cases no sample has. */
function report(result: object, artifact: object = {}): string {
  return JSON.stringify({
    SchemaVersion: 2,
    ArtifactName: 'registry.example.com/shop/api:1.4.2',
    ArtifactType: 'container_image',
    Metadata: { OS: { Family: 'alpine', Name: '3.19.1' } },
    ...artifact,
    Results: [
      {
        Target: 'registry.example.com/shop/api:1.4.2 (alpine 3.19.1)',
        Class: 'os-pkgs',
        Type: 'alpine',
        ...result,
      },
    ],
  });
}

const VULNERABILITY = {
  VulnerabilityID: 'CVE-2024-0001',
  PkgName: 'openssl',
  InstalledVersion: '3.1.4-r0',
  FixedVersion: '3.1.4-r1',
  Severity: 'HIGH',
};

/**
 * What DefectDojo asserts about each sample's first finding, in Rampart's fields. DefectDojo's
 * title ("CVE-… package version", "KSV116 - title") is split here into the rule id, the title
 * and the location.
 */
const FIRST_FINDING_CHECKS: Record<string, (parsed: Parsed) => void> = {
  'trivy/all_statuses.json': ({ findings }) => {
    // active, not a false positive, not mitigated: no state
    expect(byId(findings, 'CVE-2011-3374').state).toBeUndefined();
  },
  'trivy/cvssv4_severity_source.json': ({ findings }) => {
    const f = byId(findings, 'CVE-2025-66614');
    expect(f.severity).toBe('Medium');
    expect(f.vulnerability.cvss4Vector).toBe(
      'CVSS:4.0/AV:N/AC:L/AT:P/PR:N/UI:N/VC:L/VI:L/VA:N/SC:N/SI:N/SA:N',
    );
    expect(f.vulnerability.cvss4Score).toBe(6.3);
  },
  'trivy/issue_14136.json': ({ findings }) => {
    expect(byId(findings, 'AVD-AWS-0143').severity).toBe('Low');
  },
  'trivy/issue_9170.json': ({ findings }) => {
    const f = byId(findings, 'KSV116');
    expect(f.vulnerability.title).toBe('Runs with a root primary or supplementary GID');
    expect(f.severity).toBe('Low');
  },
  'trivy/issue_9333.json': ({ findings }) => {
    expect(byId(findings, 'CVE-2011-3374').severity).toBe('Low');
  },
  'trivy/legacy_many_vulns.json': ({ findings }) => {
    const f = byId(findings, 'CVE-2011-3374');
    expect(f.severity).toBe('Low');
    expect(f.vulnerability.cveIds).toEqual(['CVE-2011-3374']);
    expect(f.vulnerability.cweIds).toEqual(['CWE-347']);
    expect(f.location).toMatchObject({ kind: 'Package', packageName: 'apt', packageVersion: '1.8.2.2' });
  },
  'trivy/license_scheme.json': ({ findings }) => {
    // DefectDojo's first finding is the first license: GPL-2.0 of alpine-baselayout, rated HIGH,
    // with no file path and no link.
    const f = findings[0]!;
    expect(f.vulnerability.ruleId).toBe('license:GPL-2.0');
    expect(f.severity).toBe('High');
    expect(f.location).toEqual({ kind: 'Package', packageName: 'alpine-baselayout' });
    expect(f.vulnerability.references).toBeUndefined();
  },
  'trivy/scheme_2_many_vulns.json': ({ findings }) => {
    const f = byId(findings, 'CVE-2020-15999');
    expect(f.severity).toBe('Medium');
    expect(f.vulnerability.cveIds).toEqual(['CVE-2020-15999']);
    expect(f.vulnerability.cweIds).toEqual(['CWE-787']);
    expect(f.vulnerability.cvss3Vector).toBe('CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:U/C:N/I:N/A:H');
    expect(f.location).toEqual({
      kind: 'Package',
      packageName: 'freetype',
      packageVersion: '2.9.1-r2',
      filePath: 'app/libs/freetype-2.9.1-r2',
    });
  },
  'trivy/severity_prio.json': ({ findings }) => {
    // Trivy rates it LOW (Ubuntu's rating, its SeveritySource); the CVSS v3 is NVD's, as
    // there is no Ubuntu CVSS.
    const f = byId(findings, 'CVE-2023-46218');
    expect(f.severity).toBe('Low');
    expect(f.vulnerability.cvss3Vector).toBe('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:L/A:N');
    expect(f.vulnerability.cvss3Score).toBe(6.5);
  },
};

describe('trivy importer: DefectDojo samples', () => {
  for (const entry of manifestEntries('trivy')) {
    it(`${entry.file}: ${entry.expectedFindings} findings, as DefectDojo`, async () => {
      const parsed = await parseFixture(trivyImporter, entry.file);
      expect(parsed.findings).toHaveLength(entry.expectedFindings);
      expect(parsed.warnings).toEqual([]);
      if (entry.firstFinding) FIRST_FINDING_CHECKS[entry.file]!(parsed);
    });
  }

  it('has a first-finding check for every sample DefectDojo asserts one for', () => {
    const asserted = manifestEntries('trivy').filter((e) => e.firstFinding);
    expect(asserted.map((e) => e.file).sort()).toEqual(Object.keys(FIRST_FINDING_CHECKS).sort());
  });
});

describe('trivy importer: detection', () => {
  const others = [grypeImporter, cyclonedxImporter, osvScannerImporter];

  for (const entry of manifestEntries('trivy')) {
    it(`${entry.file} is Trivy and nothing else`, () => {
      const text = head(entry.file);
      expect(trivyImporter.detect(text)).toBeGreaterThanOrEqual(0.8);
      for (const other of others) expect(other.detect(text), other.format).toBeLessThan(0.5);
    });
  }

  it('does not take Grype, CycloneDX or OSV-Scanner reports for its own', () => {
    for (const file of [
      'anchore_grype/many_vulns3.json',
      'cyclonedx/issue_9277.json',
      'cyclonedx/log4j.xml',
    ]) {
      expect(trivyImporter.detect(head(file)), file).toBeLessThan(0.5);
    }
    expect(trivyImporter.detect(head('osv_scanner/many_findings.json'))).toBeLessThan(0.5);
  });

  it('gives a Nessus-like XML head less than 0.3', () => {
    const nessus =
      '<?xml version="1.0" ?><NessusClientData_v2><Report name="weekly"><ReportHost name="10.0.0.5">';
    expect(trivyImporter.detect(nessus)).toBeLessThan(0.3);
  });
});

describe('trivy importer: assets', () => {
  it('files a container image under the image, with its OS', async () => {
    const { findings } = await parseFixture(trivyImporter, 'trivy/scheme_2_many_vulns.json');
    expect(new Set(findings.map((f) => JSON.stringify(f.asset)))).toEqual(
      new Set([
        JSON.stringify({ kind: 'ContainerImage', image: 'teamdojo:latest', operatingSystem: 'alpine 3.9.4' }),
      ]),
    );
  });

  it('names an image without ArtifactName by its tag', async () => {
    const { findings } = await parseFixture(trivyImporter, 'trivy/all_statuses.json');
    expect(findings[0]!.asset).toMatchObject({ kind: 'ContainerImage', operatingSystem: 'debian 10.13' });
    expect(findings[0]!.asset.image).toMatch(/^noppaknopsta\/example-app/);
  });

  it('files a file system or repository scan under the code repository', async () => {
    const { findings } = await parseFixture(trivyImporter, 'trivy/issue_14136.json');
    expect(findings[0]!.asset).toEqual({ kind: 'CodeRepository', repository: 'tofu/clusters/sandbox' });
    const repo = await parseText(
      trivyImporter,
      report(
        { Target: 'package-lock.json', Class: 'lang-pkgs', Type: 'npm', Vulnerabilities: [VULNERABILITY] },
        { ArtifactName: 'https://github.com/example/shop', ArtifactType: 'repository', Metadata: {} },
      ),
    );
    expect(repo.findings[0]!.asset).toEqual({
      kind: 'CodeRepository',
      repository: 'https://github.com/example/shop',
    });
  });

  it('reads the image of a legacy report from its first target', async () => {
    const { findings } = await parseFixture(trivyImporter, 'trivy/legacy_many_vulns.json');
    expect(findings[0]!.asset).toEqual({
      kind: 'ContainerImage',
      image: 'debian',
      operatingSystem: 'debian 10.8',
    });
  });

  it('files a Kubernetes report under the cluster, each check at its resource', async () => {
    const { findings } = await parseFixture(trivyImporter, 'trivy/issue_9170.json');
    expect(findings[0]!.asset).toEqual({ kind: 'Host', name: 'minikube', hostname: 'minikube' });
    expect(findings.map((f) => f.location.filePath)).toContain('default/Deployment/httpbin');
    expect(findings[0]!.location).toEqual({ kind: 'File', filePath: 'default/Service/kubernetes' });
  });

  // `trivy k8s` on EKS names the cluster by its ARN, which is no host name; the whole
  // report used to be skipped (0 findings, import Completed).
  it('files an EKS report (ClusterName an ARN): image contents on their images, configuration on the cluster', async () => {
    const { findings, warnings } = await parseFixture(trivyImporter, 'trivy/issue-12-eks-cluster.json');
    expect(findings).toHaveLength(7);
    expect(warnings).toEqual([]);
    const cni = {
      kind: 'ContainerImage',
      image: '602401143452.dkr.ecr.us-east-1.amazonaws.com/amazon-k8s-cni:v1.15.1-eksbuild.1',
      operatingSystem: 'amazon 2 (Karoo)',
    };
    const curl = findings.filter((f) => f.vulnerability.ruleId === 'CVE-2023-38545');
    expect(curl.map((f) => f.asset)).toEqual([
      cni,
      { kind: 'ContainerImage', image: 'nginx:1.25.2', operatingSystem: 'debian 12.1' },
    ]);
    expect(curl[0]!.evidence).toContain('Resource: kube-system/DaemonSet/aws-node');
    // A language package of the same image (its target is a path inside the image).
    expect(byId(findings, 'CVE-2023-39325').asset).toEqual(cni);
    const cluster = {
      kind: 'Host',
      name: 'arn:aws:eks:us-east-1:123456789012:cluster/prod',
      hostname: 'arn-aws-eks-us-east-1-123456789012-cluster-prod',
    };
    expect(byId(findings, 'KSV012')).toMatchObject({
      asset: cluster,
      location: { kind: 'File', filePath: 'shop/Deployment/web', line: 132 },
    });
    expect(byId(findings, 'KSV041')).toMatchObject({
      asset: cluster,
      location: { kind: 'File', filePath: 'ClusterRole/system:aggregate-to-edit', line: 91 },
    });
  });

  it('reads the summary layout of a Kubernetes report (resources under Findings) the same way', async () => {
    const text = readFileSync(fixturePath('trivy/issue-12-eks-cluster.json'), 'utf8').replace(
      '"Resources":',
      '"Findings":',
    );
    expect(trivyImporter.detect(text)).toBeGreaterThanOrEqual(0.9);
    const { findings } = await parseText(trivyImporter, text);
    expect(findings).toHaveLength(7);
    expect(byId(findings, 'CVE-2023-39325').asset.image).toMatch(/amazon-k8s-cni/);
  });

  it('keeps a cluster whose name is too long for a host name apart from its neighbours', async () => {
    const name = (n: number) => `arn:aws:eks:eu-west-1:123456789012:cluster/${'platform-'.repeat(8)}${n}`;
    const hostnames = [];
    for (const n of [1, 2]) {
      const { findings } = await parseText(
        trivyImporter,
        readFileSync(fixturePath('trivy/issue-12-eks-cluster.json'), 'utf8').replace(
          'arn:aws:eks:us-east-1:123456789012:cluster/prod',
          name(n),
        ),
      );
      const host = byId(findings, 'KSV041').asset;
      expect(host.name).toBe(name(n));
      expect(host.hostname!.length).toBeLessThanOrEqual(63);
      expect(host.hostname).toMatch(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/);
      hostnames.push(host.hostname);
    }
    expect(hostnames[0]).not.toBe(hostnames[1]);
  });
});

describe('trivy importer: findings', () => {
  it('locates a misconfiguration in its file at the first line of the cause', async () => {
    const { findings } = await parseFixture(trivyImporter, 'trivy/issue_14136.json');
    const f = findings[0]!;
    expect(f.location).toEqual({ kind: 'File', filePath: '../../aws-credentials/main.tf', line: 20 });
    expect(f.vulnerability.solution).toBe('Grant policies at the group level instead.');
    expect(f.evidence).toContain('One or more policies are attached directly to a user');
    expect(f.evidence).toContain('21:   for_each = var.users');
  });

  it('keeps Trivy severities and documents the mapping', async () => {
    expect(TRIVY_SEVERITY).toEqual({
      CRITICAL: 'Critical',
      HIGH: 'High',
      MEDIUM: 'Medium',
      LOW: 'Low',
      UNKNOWN: 'Info',
    });
    const { findings } = await parseFixture(trivyImporter, 'trivy/scheme_2_many_vulns.json');
    expect(byId(findings, 'CVE-2019-12900').severity).toBe('Critical');
    expect(byId(findings, 'CVE-2020-28196').severity).toBe('High');
  });

  it('rates UNKNOWN by the CVSS v3 score it carries, else Info', async () => {
    const rated = {
      ...VULNERABILITY,
      Severity: 'UNKNOWN',
      CVSS: { nvd: { V3Vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', V3Score: 9.8 } },
    };
    const unrated = { ...VULNERABILITY, VulnerabilityID: 'CVE-2024-0002', Severity: 'UNKNOWN' };
    const { findings } = await parseText(trivyImporter, report({ Vulnerabilities: [rated, unrated] }));
    expect(byId(findings, 'CVE-2024-0001').severity).toBe('Critical');
    expect(byId(findings, 'CVE-2024-0002').severity).toBe('Info');
  });

  it('keeps CVSS v3 and v4 and the vendor ids as aliases', async () => {
    const { findings } = await parseFixture(trivyImporter, 'trivy/cvssv4_severity_source.json');
    const f = byId(findings, 'CVE-2025-66614');
    expect(f.vulnerability).toMatchObject({
      cveIds: ['CVE-2025-66614'],
      aliases: ['GHSA-fpj8-gq4v-p354'],
      cvss3Vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:H/I:N/A:N',
      cvss3Score: 5.3,
      cweIds: ['CWE-20'],
      publishedAt: '2026-02-17T19:21:55.31Z',
    });
    expect(f.fixedIn).toBe('11.0.14, 10.1.49, 9.0.112');
    expect(f.toolFindingId).toMatch(/^sha256:/);
    expect(f.vulnerability.references?.[0]).toBe('https://avd.aquasec.com/nvd/cve-2025-66614');
  });

  it('lists the packages as software of the asset', async () => {
    const { records } = await parseFixture(trivyImporter, 'trivy/cvssv4_severity_source.json');
    expect(records.filter((r) => r.type === 'software')).toEqual([
      {
        type: 'software',
        asset: { kind: 'CodeRepository', repository: 'lib/catalina.jar' },
        name: 'org.apache.tomcat:tomcat-catalina',
        version: '9.0.109',
        category: 'Library',
        purl: 'pkg:maven/org.apache.tomcat/tomcat-catalina@9.0.109',
      },
    ]);
    const os = await parseText(trivyImporter, report({ Packages: [{ Name: 'musl', Version: '1.2.4-r2' }] }));
    expect(os.records[0]).toMatchObject({ type: 'software', name: 'musl', category: 'OsPackage' });
  });

  it('reads secrets in their file, with the masked match as evidence', async () => {
    const secret = {
      RuleID: 'aws-access-key-id',
      Category: 'AWS',
      Severity: 'CRITICAL',
      Title: 'AWS Access Key ID',
      StartLine: 3,
      Match: 'AWS_ACCESS_KEY_ID=********************',
    };
    const { findings } = await parseText(
      trivyImporter,
      report({ Target: 'deploy/.env', Class: 'secret', Type: undefined, Secrets: [secret] }),
    );
    expect(findings[0]).toMatchObject({
      vulnerability: { ruleId: 'aws-access-key-id', title: 'AWS Access Key ID' },
      location: { kind: 'File', filePath: 'deploy/.env', line: 3 },
      severity: 'Critical',
      evidence: 'AWS_ACCESS_KEY_ID=********************',
    });
  });

  it('waits for a Target that comes after its items', async () => {
    const text = JSON.stringify({
      SchemaVersion: 2,
      ArtifactName: 'app',
      ArtifactType: 'filesystem',
      Results: [{ Vulnerabilities: [VULNERABILITY], Class: 'lang-pkgs', Target: 'go.sum' }],
    });
    const { findings } = await parseText(trivyImporter, text);
    expect(findings[0]!.evidence).toContain('Target: go.sum');
  });
});

describe('trivy importer: states', () => {
  it('closes only what the vendor states not affected; other statuses stay open', async () => {
    const { findings } = await parseFixture(trivyImporter, 'trivy/all_statuses.json');
    expect(byId(findings, 'CVE-2019-18276').state).toEqual({
      state: 'FalsePositive',
      reason: 'The vendor states this package is not affected (Trivy status not_affected).',
    });
    // fixed (a fix exists), under_investigation, will_not_fix, fix_deferred, end_of_life,
    // affected, unknown: the package is still vulnerable, and accepting that is the user's call.
    for (const id of [
      'CVE-2018-1000876',
      'CVE-2018-12697',
      'CVE-2018-12698',
      'CVE-2018-12699',
      'CVE-2018-12934',
      'TEMP-0841856-B18BAF',
    ]) {
      expect(byId(findings, id).state, id).toBeUndefined();
    }
  });

  it('carries the VEX or .trivyignore decision of suppressed findings', async () => {
    const suppressed = [
      {
        Type: 'vulnerability',
        Status: 'not_affected',
        Statement: 'vulnerable_code_not_in_execute_path',
        Source: 'CycloneDX VEX',
        Finding: VULNERABILITY,
      },
      {
        Type: 'vulnerability',
        Status: 'ignored',
        Statement: 'no fix upstream',
        Source: '.trivyignore.yaml',
        Finding: { ...VULNERABILITY, VulnerabilityID: 'CVE-2024-0002' },
      },
    ];
    const { findings } = await parseText(trivyImporter, report({ ExperimentalModifiedFindings: suppressed }));
    expect(byId(findings, 'CVE-2024-0001').state).toEqual({
      state: 'FalsePositive',
      reason: 'Not affected (VEX): vulnerable_code_not_in_execute_path; source: CycloneDX VEX',
    });
    expect(byId(findings, 'CVE-2024-0002').state).toEqual({
      state: 'RiskAccepted',
      reason: 'Ignored in Trivy: no fix upstream; source: .trivyignore.yaml',
    });
  });

  it('leaves passed checks out and marks policy exceptions as accepted', async () => {
    const check = { ID: 'DS002', Title: 'Image user should not be root', Severity: 'HIGH' };
    const { findings } = await parseText(
      trivyImporter,
      report({
        Target: 'Dockerfile',
        Class: 'config',
        Type: 'dockerfile',
        Misconfigurations: [
          { ...check, Status: 'PASS' },
          { ...check, ID: 'DS026', Status: 'EXCEPTION' },
        ],
      }),
    );
    expect(findings).toHaveLength(1);
    expect(findings[0]!.state?.state).toBe('RiskAccepted');
  });
});

describe('trivy importer: limits', () => {
  it('cuts evidence and long fields, and says so', async () => {
    const misconfiguration = {
      ID: 'KSV001',
      Title: 'Process can elevate its own privileges',
      Severity: 'MEDIUM',
      Description: 'd'.repeat(40_000),
      Message: 'm'.repeat(70_000),
      Status: 'FAIL',
    };
    const { findings, warnings } = await parseText(
      trivyImporter,
      report({
        Target: 'deploy.yaml',
        Class: 'config',
        Type: 'kubernetes',
        Misconfigurations: [misconfiguration],
      }),
    );
    const f = findings[0]!;
    expect(f.evidence!.length).toBeLessThanOrEqual(64 * 1024);
    expect(f.evidence!.endsWith('… [truncated]')).toBe(true);
    expect(f.vulnerability.description!.length).toBeLessThanOrEqual(32 * 1024);
    expect(f.vulnerability.description!.endsWith('… [truncated]')).toBe(true);
    expect(warnings.length).toBeGreaterThanOrEqual(2);
  });
});

describe('trivy importer: bad input', () => {
  it('fails on JSON cut in the middle', async () => {
    const text = head('trivy/scheme_2_many_vulns.json').slice(0, 5000);
    const error = await failure(parseText(trivyImporter, text));
    expect(error.message).toMatch(/Not valid JSON/);
  });

  it('refuses JSON of another shape with a clear message', async () => {
    expect((await failure(parseText(trivyImporter, '{"foo": 1}'))).message).toMatch(
      /not a Trivy JSON report/,
    );
    expect((await failure(parseText(trivyImporter, '[1, 2, 3]'))).message).toMatch(/not a Trivy JSON report/);
    expect((await failure(parseText(trivyImporter, '"text"'))).message).toMatch(/not a Trivy JSON report/);
  });

  it('refuses an empty file', async () => {
    expect((await failure(parseText(trivyImporter, ''))).message).toMatch(/empty/);
    expect((await failure(parseText(trivyImporter, ' \n '))).message).toMatch(/empty/);
  });

  it('reads the legacy reports of a clean image as no findings', async () => {
    expect((await parseText(trivyImporter, '[]')).records).toEqual([]);
    expect((await parseText(trivyImporter, 'null')).records).toEqual([]);
  });
});

describe('trivy importer: CVSS of every version', () => {
  it("legacy_many_vulns.json: NVD's V2 and V3 of CVE-2011-3374, each with its vector", async () => {
    const { findings } = await parseFixture(trivyImporter, 'trivy/legacy_many_vulns.json');
    expect(byId(findings, 'CVE-2011-3374').vulnerability).toMatchObject({
      cvss2Vector: 'AV:N/AC:M/Au:N/C:N/I:P/A:N',
      cvss2Score: 4.3,
      cvss3Vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:N/I:L/A:N',
      cvss3Score: 3.7,
    });
  });

  it('leaves out a V2Vector that is not CVSS v2, and scores a V2Vector given without V2Score', async () => {
    const report = (cvss: unknown) =>
      JSON.stringify({
        SchemaVersion: 2,
        ArtifactName: 'alpine:3.18',
        ArtifactType: 'container_image',
        Results: [
          {
            Target: 'alpine:3.18 (alpine 3.18.0)',
            Class: 'os-pkgs',
            Type: 'alpine',
            Vulnerabilities: [
              {
                VulnerabilityID: 'CVE-2023-0001',
                PkgName: 'busybox',
                InstalledVersion: '1.36.0-r0',
                Severity: 'MEDIUM',
                CVSS: cvss,
              },
            ],
          },
        ],
      });
    const read = async (cvss: unknown) =>
      (await parseText(trivyImporter, report(cvss))).findings[0]!.vulnerability;
    expect(await read({ nvd: { V2Vector: 'AV:N/AC:L/Au:N/C:P/I:P/A:P' } })).toMatchObject({
      cvss2Vector: 'AV:N/AC:L/Au:N/C:P/I:P/A:P',
      cvss2Score: 7.5,
    });
    const broken = await read({
      nvd: { V2Vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', V2Score: 'x' },
    });
    expect(broken.cvss2Vector).toBeUndefined();
    expect(broken.cvss2Score).toBeUndefined();
  });
});
