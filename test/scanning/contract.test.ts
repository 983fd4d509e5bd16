import { describe, expect, it } from 'vitest';
import {
  ContractError,
  checkBatch,
  type DiscoverySpec,
  readSpec,
  type SystemSpec,
  specIssues,
  type WebSpec,
} from '../../src/scanning/contract.js';

const POLICY = { allowed: ['198.18.0.0/24'], excluded: [], allowLoopback: false };

const discovery = (): DiscoverySpec => ({
  targets: [{ range: '198.18.0.0/28', name: 'lab', exclude: ['198.18.0.1'] }],
  exclusions: [],
  template: {
    ports: [22, 80, 443],
    timeoutMs: 1000,
    retries: 1,
    maxInFlight: 256,
    connectionsPerSecond: 500,
    perHostInFlight: 3,
    reverseDns: true,
    useNmap: false,
  },
  policy: POLICY,
});

const system = (): SystemSpec => ({
  targets: [{ range: '198.18.0.5' }],
  exclusions: [],
  template: {
    ports: 'top1000',
    timeoutMs: 1500,
    retries: 1,
    maxInFlight: 512,
    connectionsPerSecond: 2000,
    perHostInFlight: 64,
    portBudgetMs: 20_000,
    hostBudgetMs: 600_000,
    runBudgetMs: 3_600_000,
    serviceDetection: true,
    tlsChecks: true,
    safeChecks: true,
    useNmapVersionDetection: false,
  },
  portsOverride: null,
  policy: POLICY,
});

const web = (): WebSpec => ({
  urls: ['https://198.18.0.20/'],
  template: {
    requestTimeoutMs: 10_000,
    urlBudgetMs: 60_000,
    runBudgetMs: 3_600_000,
    requestsPerSecond: 5,
    tlsChecks: true,
    headerChecks: true,
    exposedFiles: true,
  },
  policy: POLICY,
});

describe('the node–server contract', () => {
  it('takes the specs the server makes, and settings a newer server adds', () => {
    expect(specIssues('Discovery', discovery())).toEqual([]);
    expect(specIssues('System', system())).toEqual([]);
    expect(specIssues('System', { ...system(), portsOverride: '22,80,8000-8100' })).toEqual([]);
    expect(specIssues('Web', web())).toEqual([]);
    const newer = { ...web(), template: { ...web().template, followRedirects: 3 }, priority: 'low' };
    expect(readSpec('Web', newer)).toBe(newer);
  });

  it('names each place a spec breaks its rules, as the node read them before', () => {
    const issues = (kind: 'Discovery' | 'System' | 'Web', spec: unknown) =>
      specIssues(kind, spec).map((i) => i.path);
    const d = discovery();
    expect(issues('Discovery', { ...d, template: { ...d.template, ports: [22, 22] } })).toEqual([
      '/template/ports',
    ]);
    expect(issues('Discovery', { ...d, template: { ...d.template, retries: -1 } })).toEqual([
      '/template/retries',
    ]);
    expect(issues('Discovery', { ...d, template: { ...d.template, connectionsPerSecond: 0 } })).toEqual([
      '/template/connectionsPerSecond',
    ]);
    expect(issues('Discovery', { ...d, targets: [{ name: 'no range' }] })).toEqual(['/targets/0/range']);
    const s = system();
    expect(issues('System', { ...s, template: { ...s.template, ports: '22,99999' } })).toEqual([
      '/template/ports',
    ]);
    expect(issues('System', { ...s, template: { ...s.template, runBudgetMs: 86_400_001 } })).toEqual([
      '/template/runBudgetMs',
    ]);
    expect(issues('System', { ...s, template: { ...s.template, safeChecks: 'yes' } })).toEqual([
      '/template/safeChecks',
    ]);
    expect(issues('System', { ...s, policy: { allowed: [], excluded: [] } })).toEqual([
      '/policy/allowLoopback',
    ]);
    const w = web();
    // A URL's budget below one request's timeout could never finish a request.
    expect(
      specIssues('Web', { ...w, template: { ...w.template, urlBudgetMs: 5000, requestTimeoutMs: 6000 } }),
    ).toEqual([{ path: '/template', message: 'urlBudgetMs must be at least requestTimeoutMs' }]);
    expect(issues('Web', { ...w, urls: 'https://198.18.0.20/' })).toEqual(['/urls']);
    expect(issues('Web', null)).toEqual(['/']);
  });

  it('refuses a spec with a ContractError whose message names the paths', () => {
    const bad = { ...system(), portsOverride: 22 };
    expect(() => readSpec('System', bad)).toThrow(ContractError);
    expect(() => readSpec('System', bad)).toThrow(
      /^The run's spec is not a System spec this node can run: \/portsOverride /,
    );
  });

  it('splits a good batch into refused addresses and results, and names every bad item', () => {
    const host = {
      address: '198.18.0.5',
      hostname: null,
      openPorts: [22],
      closedPorts: [],
      macAddress: null,
      osGuess: null,
    };
    const refused = { refused: true, address: 'lab.example', rule: 'Unresolved', message: 'no' };
    expect(checkBatch('Discovery', [host, refused])).toEqual({
      batch: { refused: [refused], results: [host] },
    });
    const bad = checkBatch(
      'Discovery',
      [{ ...host, address: '198.18.0.256' }, host, { ...refused, rule: 'x' }],
      '/Items',
    );
    expect('issues' in bad && bad.issues.map((i) => i.path)).toEqual(['/Items/0/address', '/Items/2/rule']);
    // A result may not carry what the contract does not name: the server stores results.
    const extra = checkBatch('Discovery', [{ ...host, shell: 'rm -rf /' }]);
    expect('issues' in extra && extra.issues[0]).toMatchObject({ path: '/0' });
  });
});
