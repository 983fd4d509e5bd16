/** Builds small .nessus v2 reports for import tests: hosts with items, exactly as Nessus lays them out. */

export interface NessusItem {
  plugin: string;
  name: string;
  port?: number;
  severity?: 0 | 1 | 2 | 3 | 4;
  cve?: string[];
  output?: string;
}

export interface NessusHost {
  ip: string;
  fqdn?: string;
  os?: string;
  items: NessusItem[];
}

const escapeXml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function item(i: NessusItem): string {
  return `<ReportItem port="${i.port ?? 443}" svc_name="www" protocol="tcp" severity="${i.severity ?? 3}" pluginID="${i.plugin}" pluginName="${escapeXml(i.name)}" pluginFamily="Web Servers">
<description>${escapeXml(i.name)} affects the remote host.</description>
<solution>Upgrade.</solution>
<risk_factor>High</risk_factor>
${(i.cve ?? []).map((c) => `<cve>${c}</cve>`).join('\n')}
<plugin_output>${escapeXml(i.output ?? `Detected ${i.name}`)}</plugin_output>
</ReportItem>`;
}

export function nessusReport(hosts: NessusHost[]): string {
  const body = hosts
    .map(
      (h) => `<ReportHost name="${h.ip}"><HostProperties>
<tag name="host-ip">${h.ip}</tag>
${h.fqdn ? `<tag name="host-fqdn">${h.fqdn}</tag>` : ''}
${h.os ? `<tag name="operating-system">${escapeXml(h.os)}</tag>` : ''}
</HostProperties>
${h.items.map(item).join('\n')}
</ReportHost>`,
    )
    .join('\n');
  return `<?xml version="1.0" ?>
<NessusClientData_v2>
<Report name="Weekly scan" xmlns:cm="http://www.nessus.org/cm">
${body}
</Report>
</NessusClientData_v2>
`;
}

/** A numbered estate: `hosts` hosts, each with `items` plugins. */
export function estate(hosts: number, items: number, skip: (h: number, i: number) => boolean = () => false) {
  return Array.from({ length: hosts }, (_, h) => ({
    ip: `10.50.${Math.floor(h / 250)}.${(h % 250) + 1}`,
    fqdn: `host-${h}.scan.example`,
    os: 'Linux Kernel 5.15',
    items: Array.from({ length: items }, (_, i) => i)
      .filter((i) => !skip(h, i))
      .map((i) => ({
        plugin: String(100000 + i),
        name: `Plugin ${i}`,
        port: 443,
        severity: ((i % 4) + 1) as 1 | 2 | 3 | 4,
      })),
  }));
}
