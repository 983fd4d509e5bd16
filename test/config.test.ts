import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, ENV_VARS, loadConfig, officialSourcesOf } from '../src/config.js';

describe('configuration', () => {
  it('has sensible defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      baseUrl: 'http://localhost:8080',
      dataDir: path.resolve('./data'),
      throttleLimit: 600,
      throttleWindowSeconds: 60,
      authCacheSeconds: 30,
      logLevel: 'info',
      trustProxy: false,
      scanAllowLoopback: false,
    });
    expect(c.databaseUrl).toBeUndefined();
    expect(c.redisUrl).toBeUndefined();
  });

  it('reads every documented variable', () => {
    const c = loadConfig({
      RAMPART_PORT: '9000',
      RAMPART_BASE_URL: 'https://vm.example.com/rampart/',
      DATABASE_URL: 'postgres://u@db/rampart',
      REDIS_URL: 'redis://cache:6379',
      RAMPART_TRUST_PROXY: 'true',
      RAMPART_THROTTLE_ROUTES: '{"getStatus":{"Limit":5,"Window":10}}',
    });
    expect(c.port).toBe(9000);
    expect(c.baseUrl).toBe('https://vm.example.com/rampart');
    expect(c.databaseUrl).toBe('postgres://u@db/rampart');
    expect(c.redisUrl).toBe('redis://cache:6379');
    expect(c.trustProxy).toBe(true);
    expect(loadConfig({ RAMPART_SCAN_ALLOW_LOOPBACK: 'true' }).scanAllowLoopback).toBe(true);
    expect(c.throttleRoutes).toEqual({ getStatus: { Limit: 5, Window: 10 } });
  });

  it('reports every problem at once, naming the variable', () => {
    let error: unknown;
    try {
      loadConfig({
        RAMPART_PORT: '70000',
        DATABASE_URL: 'mysql://x',
        RAMPART_TRUST_PROXY: 'maybe',
        RAMPART_LOG_LEVEL: 'loud',
        RAMPART_THROTTLE_ROUTES: '{"getStatus":{"limit":5}}',
        RAMPART_ADMIN_EMAIL: 'nobody',
        RAMPART_INTEL_SYNC_URLS: 'https://nvd.example/feed.json ftp://mirror.example/kev.json',
        RAMPART_INTEL_SYNC_HOURS: '0',
        RAMPART_INTEL_MAX_BYTES: '12',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const text = (error as ConfigError).message;
    for (const name of [
      'RAMPART_PORT',
      'DATABASE_URL',
      'RAMPART_TRUST_PROXY',
      'RAMPART_LOG_LEVEL',
      'RAMPART_THROTTLE_ROUTES',
      'RAMPART_ADMIN_EMAIL',
      'RAMPART_INTEL_SYNC_URLS',
      'RAMPART_INTEL_SYNC_HOURS',
      'RAMPART_INTEL_MAX_BYTES',
    ]) {
      expect(text).toContain(name);
    }
  });

  it('runs the local scan node unless RAMPART_LOCAL_SCAN_NODE is false, and refuses another value', () => {
    expect(loadConfig({}).localScanNode).toBe(true);
    expect(loadConfig({ RAMPART_LOCAL_SCAN_NODE: 'false' }).localScanNode).toBe(false);
    expect(() => loadConfig({ RAMPART_LOCAL_SCAN_NODE: 'sometimes' })).toThrow(
      'RAMPART_LOCAL_SCAN_NODE="sometimes" must be true or false',
    );
  });

  it('refuses a scan loopback flag that is not true or false, naming the variable', () => {
    expect(() => loadConfig({ RAMPART_SCAN_ALLOW_LOOPBACK: 'sometimes' })).toThrow(
      'RAMPART_SCAN_ALLOW_LOOPBACK="sometimes" must be true or false',
    );
  });

  it('syncs the official intelligence sources by default, their mirrors when set, none with RAMPART_INTEL_SYNC=off', () => {
    // Only read here, never fetched: no test reaches these addresses.
    expect(officialSourcesOf(loadConfig({}))).toEqual({
      nvd: {
        url: 'https://services.nvd.nist.gov/rest/json/cves/2.0',
        apiKey: undefined,
        resultsPerPage: 2000,
      },
      kev: 'https://www.cisa.gov/sites/default/files/feeds/known_exploited_vulnerabilities.json',
      epss: 'https://epss.empiricalsecurity.com/epss_scores-current.csv.gz',
      osv: {
        url: 'https://osv-vulnerabilities.storage.googleapis.com',
        ecosystems: [
          'Debian',
          'Ubuntu',
          'Alpine',
          'npm',
          'PyPI',
          'Maven',
          'Go',
          'crates.io',
          'NuGet',
          'RubyGems',
          'Packagist',
        ],
      },
    });
    expect(officialSourcesOf(loadConfig({ RAMPART_INTEL_SYNC: 'off' }))).toBeUndefined();
    expect(
      officialSourcesOf(
        loadConfig({
          RAMPART_INTEL_NVD_URL: 'http://mirror.internal/nvd',
          RAMPART_INTEL_NVD_API_KEY: 'abc-123',
          RAMPART_INTEL_NVD_PAGE_SIZE: '500',
          RAMPART_INTEL_OSV_ECOSYSTEMS: ' Debian , npm,npm ',
        }),
      ),
    ).toMatchObject({
      nvd: { url: 'http://mirror.internal/nvd', apiKey: 'abc-123', resultsPerPage: 500 },
      osv: { ecosystems: ['Debian', 'npm'] },
    });
  });

  it('refuses an intelligence sync setting that is not on or off, and mirrors that are not http(s) addresses', () => {
    let error: unknown;
    try {
      loadConfig({
        RAMPART_INTEL_SYNC: 'sometimes',
        RAMPART_INTEL_NVD_URL: 'ftp://mirror.example/nvd',
        RAMPART_INTEL_OSV_URL: 'not a url',
        RAMPART_INTEL_OSV_ECOSYSTEMS: 'npm;PyPI',
        RAMPART_INTEL_NVD_PAGE_SIZE: '5000',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const text = (error as ConfigError).message;
    for (const name of [
      'RAMPART_INTEL_SYNC="sometimes" must be one of on, off',
      'RAMPART_INTEL_NVD_URL',
      'RAMPART_INTEL_OSV_URL',
      'RAMPART_INTEL_OSV_ECOSYSTEMS',
      'RAMPART_INTEL_NVD_PAGE_SIZE',
    ])
      expect(text).toContain(name);
  });

  it('serves no metrics by default; reads the metrics token, port and host', () => {
    const none = loadConfig({});
    expect(none.metricsToken).toBeUndefined();
    expect(none.metricsPort).toBeUndefined();
    expect(none.metricsHost).toBe('127.0.0.1');
    const token = 'a'.repeat(16) + 'B'.repeat(16);
    const c = loadConfig({
      RAMPART_METRICS_TOKEN: ` ${token} `,
      RAMPART_METRICS_PORT: '9464',
      RAMPART_METRICS_HOST: '10.0.0.5',
    });
    expect(c).toMatchObject({ metricsToken: token, metricsPort: 9464, metricsHost: '10.0.0.5' });
  });

  it('refuses bad metrics settings, naming the variable and never the token', () => {
    const problemsOf = (env: Record<string, string>): string[] => {
      try {
        loadConfig(env);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as ConfigError).problems;
      }
      throw new Error(`accepted ${JSON.stringify(env)}`);
    };
    const short = problemsOf({ RAMPART_METRICS_TOKEN: 'too-short-a-secret' });
    expect(short.join('\n')).toMatch(/^RAMPART_METRICS_TOKEN: .*32/);
    expect(short.join('\n')).not.toContain('too-short-a-secret');
    const spaced = `${'x'.repeat(20)} ${'y'.repeat(20)}`;
    expect(problemsOf({ RAMPART_METRICS_TOKEN: spaced }).join('\n')).toMatch(/^RAMPART_METRICS_TOKEN: /);
    expect(problemsOf({ RAMPART_METRICS_PORT: 'ninety' })).toEqual([
      'RAMPART_METRICS_PORT="ninety" is not a whole number',
    ]);
    expect(problemsOf({ RAMPART_METRICS_PORT: '70000' }).join('\n')).toMatch(/^RAMPART_METRICS_PORT: /);
    expect(problemsOf({ RAMPART_METRICS_PORT: '0' }).join('\n')).toMatch(/^RAMPART_METRICS_PORT: /);
    expect(problemsOf({ RAMPART_PORT: '9000', RAMPART_METRICS_PORT: '9000' })).toEqual([
      'RAMPART_METRICS_PORT must differ from RAMPART_PORT (9000): the metrics port is a server of its own',
    ]);
    expect(problemsOf({ RAMPART_METRICS_HOST: '0.0.0.0' })).toEqual([
      'RAMPART_METRICS_HOST is set without RAMPART_METRICS_PORT: set the port too, or leave both out',
    ]);
  });

  it('documents a purpose for every variable it reads', () => {
    for (const [name, text] of Object.entries(ENV_VARS)) {
      expect(text.length, name).toBeGreaterThan(10);
    }
  });
});
