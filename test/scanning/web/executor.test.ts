import { describe, expect, it } from 'vitest';
import { readSpec } from '../../../src/scanning/contract.js';
import { builtInExecutors } from '../../../src/scanning/node/executors.js';
import { webExecutor } from '../../../src/scanning/node/web-executor.js';
import type { RunContext, WebSpec, WebUrlResult } from '../../../src/scanning/types.js';
import { routes, send, startSite } from './sites.js';

const TEMPLATE = {
  requestTimeoutMs: 5000,
  urlBudgetMs: 30_000,
  runBudgetMs: 60_000,
  requestsPerSecond: 100,
  tlsChecks: false,
  headerChecks: true,
  exposedFiles: false,
};

function context() {
  const emitted: unknown[] = [];
  const logs: Array<[string, Record<string, unknown> | undefined]> = [];
  const ctx: RunContext = {
    signal: new AbortController().signal,
    emit: async (items) => {
      emitted.push(...items);
    },
    progress: () => undefined,
    log: (message, details) => logs.push([message, details]),
  };
  return { ctx, emitted, logs };
}

describe('the web executor', () => {
  it('is a built-in executor', () => {
    expect(builtInExecutors().has('Web')).toBe(true);
  });

  it('refuses a URL whose address the policy refuses: the site sees no connection', async () => {
    const site = await startSite(routes({ '/': send(200, 'x') }));
    try {
      const { ctx, emitted, logs } = context();
      const spec: WebSpec = {
        urls: [`http://127.0.0.1:${site.port}/`],
        template: TEMPLATE,
        policy: { allowed: ['127.0.0.1/32'], excluded: [], allowLoopback: false },
      };
      await webExecutor()(spec, ctx);
      expect(emitted).toEqual([]);
      expect(site.connections).toBe(0);
      expect(logs.find(([m]) => m === 'address refused')?.[1]).toMatchObject({
        address: '127.0.0.1',
        rule: 'Loopback',
      });
      expect(logs.at(-1)).toEqual(['web scan finished', { scanned: 0, refused: 1, budgetExhausted: null }]);
    } finally {
      await site.close();
    }
  });

  it('scans a host name the policy allows, at the address it resolves to', async () => {
    const site = await startSite(routes({ '/': send(200, 'x') }));
    try {
      const { ctx, emitted } = context();
      const spec: WebSpec = {
        urls: [`http://app.example.test:${site.port}/`],
        template: TEMPLATE,
        policy: { allowed: ['app.example.test'], excluded: [], allowLoopback: true },
      };
      await webExecutor({
        resolve: async () => ['127.0.0.1'],
        counterpartPorts: { http: site.port, https: 1 },
      })(spec, ctx);
      const result = emitted[0] as WebUrlResult;
      expect(result.address).toBe('127.0.0.1');
      expect(result.status).toBe(200);
      expect(site.connections).toBeGreaterThan(0);
    } finally {
      await site.close();
    }
  });

  it.each([
    [null, /not a Web spec this node can run/],
    [
      { urls: 'x', template: TEMPLATE, policy: { allowed: [], excluded: [], allowLoopback: false } },
      /\/urls must be array/,
    ],
    [
      { urls: [], template: TEMPLATE, policy: { allowed: [], excluded: [] } },
      /\/policy\/allowLoopback is required/,
    ],
    [
      {
        urls: [],
        template: { ...TEMPLATE, requestsPerSecond: -1 },
        policy: { allowed: [], excluded: [], allowLoopback: false },
      },
      /\/template\/requestsPerSecond/,
    ],
  ])(
    'rejects a spec that is not a web run, as the node checks it against the contract (%#)',
    async (spec, message) => {
      const claimed = async () => webExecutor()(readSpec('Web', spec), context().ctx);
      await expect(claimed()).rejects.toThrow(message);
    },
  );
});
