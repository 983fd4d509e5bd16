import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT, runCli } from '../../src/main.js';
import { createPostgresDatabase } from '../helpers/databases.js';
import { metricValue, parseMetrics } from '../helpers/prometheus.js';

/** A port free a moment ago (the OS's pick for port 0). */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

// `rampart serve` starts the metrics port beside the main one (RAMPART_METRICS_PORT), and its
// probes answer on the main port.
describe.runIf(process.env.DATABASE_URL)('rampart serve with a metrics port [postgres]', () => {
  const env: Record<string, string> = {
    RAMPART_LOG_LEVEL: 'silent',
    RAMPART_PORT: '0',
    RAMPART_INTEL_SYNC: 'off',
    RAMPART_INTEL_KB: 'off',
    RAMPART_LOCAL_SCAN_NODE: 'false',
  };
  let drop = async () => {};
  let stop = async () => {};
  let url = '';
  let metricsUrl = '';

  const serve = async (extra: Record<string, string>) => {
    let stdout = '';
    let stderr = '';
    const code = await runCli(
      ['serve'],
      {
        env: { ...env, ...extra },
        out: {
          stdout: (t) => {
            stdout += t;
          },
          stderr: (t) => {
            stderr += t;
          },
        },
      },
      (s) => {
        stop = s;
      },
    );
    return { code, stdout, stderr };
  };

  beforeAll(async () => {
    const pgdb = await createPostgresDatabase();
    env.DATABASE_URL = pgdb.url;
    drop = pgdb.drop;
    const port = await freePort();
    const started = await serve({ RAMPART_METRICS_PORT: String(port) });
    expect(started.code, started.stderr).toBe(EXIT.ok);
    url = /running at (http:\/\/\S+)/.exec(started.stdout)![1]!;
    metricsUrl = `http://127.0.0.1:${port}/metrics`;
  });
  afterAll(async () => {
    await stop();
    await drop();
  });

  it('serves the metrics on their port, not on the main one, and the probes on the main one', async () => {
    expect((await fetch(`${url}/health/live`)).status).toBe(200);
    const ready = await fetch(`${url}/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ Status: 'Ready', Database: 'Ok', Migrations: 'Ok' });
    expect((await fetch(`${url}/metrics`)).status).toBe(404);
    const res = await fetch(metricsUrl);
    expect(res.status).toBe(200);
    const families = parseMetrics(await res.text());
    expect(
      metricValue(families, 'rampart_http_requests_total', { route: '/health/ready', status: '200' }),
    ).toBe(1);
    // The scrape read the database's figures.
    expect(metricValue(families, 'rampart_database_up')).toBe(1);
  });

  it('refuses to start when the metrics port is taken, naming the variable', async () => {
    const taken = Number(new URL(metricsUrl).port);
    const second = await serve({ RAMPART_METRICS_PORT: String(taken) });
    expect(second.code).not.toBe(EXIT.ok);
    expect(second.stderr).toContain(`RAMPART_METRICS_PORT ${taken} on 127.0.0.1 is in use`);
  });
});
