/**
 * Synthetic scanner reports for the benchmarks (bench:import, bench:busy): a Nessus report of
 * `findings` findings over `hosts` hosts, and a Trivy report of one container image, each with a
 * variant where 10 % of the findings are gone and 5 % are new. Written line by line, so that
 * generating 100,000 findings takes no memory either.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';

export interface ReportSize {
  findings: number;
  hosts: number;
}

/** Streams lines to a file, waiting on the stream's back-pressure. */
export async function writeLines(path: string, lines: Iterable<string>): Promise<void> {
  const out = createWriteStream(path);
  for (const line of lines) if (!out.write(line)) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
}

/** Finding i of host h exists in a variant unless it is one of the 10 % fixed; 5 % more are new. */
export function* nessusReport({ findings, hosts }: ReportSize, variant: boolean): Generator<string> {
  const perHost = Math.ceil(findings / hosts);
  const keep = (h: number, i: number) => !variant || (h * perHost + i) % 10 !== 0;
  const extra = variant ? Math.ceil(perHost * 0.05) : 0;
  yield '<?xml version="1.0" ?>\n<NessusClientData_v2>\n<Report name="bench" xmlns:cm="http://www.nessus.org/cm">\n';
  for (let h = 0; h < hosts; h++) {
    const ip = `10.${Math.floor(h / 65536) % 256}.${Math.floor(h / 256) % 256}.${h % 256}`;
    yield `<ReportHost name="${ip}"><HostProperties><tag name="host-ip">${ip}</tag><tag name="host-fqdn">bench-${h}.example.com</tag><tag name="operating-system">Linux Kernel 5.15</tag></HostProperties>\n`;
    for (let i = 0; i < perHost + extra; i++) {
      if (i < perHost && !keep(h, i)) continue;
      const plugin = 100000 + (i % 5000) + (i >= perHost ? 50000 : 0);
      const port = [22, 80, 443, 8080, 3306][i % 5];
      yield `<ReportItem port="${port}" svc_name="www" protocol="tcp" severity="${(i % 4) + 1}" pluginID="${plugin}" pluginName="Synthetic plugin ${plugin}" pluginFamily="General">
<description>Synthetic vulnerability ${plugin} found by the benchmark.</description><solution>Upgrade.</solution><risk_factor>High</risk_factor>
<cve>CVE-2024-${10000 + (plugin % 40000)}</cve><cvss3_base_score>${((i % 90) / 10 + 1).toFixed(1)}</cvss3_base_score>
<plugin_output>Installed version : 1.${i}\nFixed version : 1.${i + 1}</plugin_output></ReportItem>\n`;
    }
    yield '</ReportHost>\n';
  }
  yield '</Report>\n</NessusClientData_v2>\n';
}

/** One container image, 20 targets, ~80,000 distinct CVEs at 100,000 findings. */
export function* trivyReport({ findings }: ReportSize, variant: boolean): Generator<string> {
  yield '{"SchemaVersion":2,"ArtifactName":"registry.example.com/bench/app:1.0","ArtifactType":"container_image","Results":[';
  const targets = 20;
  const perTarget = Math.ceil(findings / targets);
  for (let t = 0; t < targets; t++) {
    yield `${t ? ',' : ''}{"Target":"layer-${t}","Class":"lang-pkgs","Type":"npm","Vulnerabilities":[`;
    let first = true;
    for (let i = 0; i < perTarget + (variant ? Math.ceil(perTarget * 0.05) : 0); i++) {
      if (i < perTarget && variant && (t * perTarget + i) % 10 === 0) continue;
      const id = i >= perTarget ? 900000 + i : i;
      yield `${first ? '' : ','}{"VulnerabilityID":"CVE-2023-${10000 + (id % 80000)}","PkgName":"pkg-${t}-${id}","InstalledVersion":"1.0.${id % 100}","FixedVersion":"1.1.0","Severity":"${['CRITICAL', 'HIGH', 'MEDIUM', 'LOW'][id % 4]}","Title":"Synthetic vulnerability ${id}","Description":"A synthetic description of vulnerability ${id} for the benchmark.","References":["https://example.com/${id}"],"CVSS":{"nvd":{"V3Vector":"CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H","V3Score":9.8}}}`;
      first = false;
    }
    yield ']}';
  }
  yield ']}\n';
}
