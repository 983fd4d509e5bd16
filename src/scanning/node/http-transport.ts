import type { ScanKind, ScanProgress } from '../types.js';
import {
  type BatchAnswer,
  type ClaimedRun,
  type FinishState,
  type HeartbeatAnswer,
  type HeartbeatInput,
  LeaseLostError,
  type NodeTransport,
  NodeUnauthorizedError,
} from './transport.js';

export interface HttpTransportOptions {
  /** The server's base URL, e.g. https://rampart.example.com. */
  serverUrl: string;
  nodeKey: string;
  /** Tries after a network error or a 502/503/504 before giving up (default 5). */
  retries?: number;
  /** The first wait between tries, doubled each time up to maxBackoffMs (default 500 ms, 10 s). */
  backoffMs?: number;
  maxBackoffMs?: number;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const RETRIED_STATUSES = new Set([502, 503, 504]);

/** The API path of the node protocol: the integration channel, which changes only with notice. */
export const apiUrl = (serverUrl: string, path: string) =>
  `${serverUrl.replace(/\/+$/, '')}/api/integration${path}`;

async function problemDetail(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { detail?: string; title?: string };
    return body.detail ?? body.title ?? text;
  } catch {
    return text || response.statusText;
  }
}

/** Enrols with a one-time token: the node's id and key (keep the key: it is shown once). */
export async function enrolOverHttp(
  serverUrl: string,
  token: string,
  description: { name?: string; kinds?: ScanKind[]; version?: string; capacity?: number },
  fetchFn: typeof fetch = fetch,
): Promise<{ nodeId: string; nodeKey: string; organizationId: string }> {
  const response = await fetchFn(apiUrl(serverUrl, '/scannodes/enrol'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      Token: token,
      ...(description.name ? { Name: description.name } : {}),
      ...(description.kinds ? { Kinds: description.kinds } : {}),
      ...(description.version ? { Version: description.version } : {}),
      ...(description.capacity ? { Capacity: description.capacity } : {}),
    }),
  });
  if (response.status !== 201)
    throw new Error(`Enrolment refused (${response.status}): ${await problemDetail(response)}`);
  const body = (await response.json()) as { NodeId: string; NodeKey: string; OrganizationId: string };
  return { nodeId: body.NodeId, nodeKey: body.NodeKey, organizationId: body.OrganizationId };
}

/**
 * The node protocol over HTTP with the node's key. A network error or a gateway's 502/503/504 is
 * tried again with backoff, with the same request (so a batch keeps its number, and the server
 * applies it once).
 */
export class HttpNodeTransport implements NodeTransport {
  private readonly fetch: typeof fetch;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: HttpTransportOptions) {
    this.fetch = options.fetch ?? fetch;
    this.sleep = options.sleep ?? defaultSleep;
  }

  private async call(method: string, path: string, body: unknown): Promise<Response> {
    const retries = this.options.retries ?? 5;
    let wait = this.options.backoffMs ?? 500;
    for (let attempt = 0; ; attempt++) {
      let response: Response | undefined;
      let failure: unknown;
      try {
        response = await this.fetch(apiUrl(this.options.serverUrl, path), {
          method,
          headers: { authorization: `Bearer ${this.options.nodeKey}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      } catch (error) {
        failure = error;
      }
      if (response && !RETRIED_STATUSES.has(response.status)) return this.checked(response);
      if (attempt >= retries) {
        if (response) return this.checked(response);
        throw new Error(
          `Cannot reach the server at ${this.options.serverUrl}: ${(failure as Error)?.message}`,
        );
      }
      await response?.body?.cancel();
      await this.sleep(wait);
      wait = Math.min(wait * 2, this.options.maxBackoffMs ?? 10_000);
    }
  }

  private async checked(response: Response): Promise<Response> {
    if (response.ok) return response;
    const detail = await problemDetail(response);
    if (response.status === 401) throw new NodeUnauthorizedError(detail);
    if (response.status === 409) throw new LeaseLostError(detail);
    throw new Error(`The server answered ${response.status}: ${detail}`);
  }

  async heartbeat(input: HeartbeatInput): Promise<HeartbeatAnswer> {
    const response = await this.call('POST', '/scannodes/heartbeat', {
      Kinds: input.kinds,
      Version: input.version,
      Capacity: input.capacity,
      RunIds: input.runIds,
    });
    const body = (await response.json()) as { StopRunIds: string[]; LostRunIds: string[] };
    return { stopRunIds: body.StopRunIds, lostRunIds: body.LostRunIds };
  }

  async claim(kinds: ScanKind[]): Promise<ClaimedRun | null> {
    const response = await this.call('POST', '/scanruns/claim', { Kinds: kinds });
    if (response.status === 204) return null;
    const body = (await response.json()) as { Id: string; Kind: ScanKind; Attempt: number; Spec: unknown };
    return { id: body.Id, kind: body.Kind, attempt: body.Attempt, spec: body.Spec };
  }

  async sendBatch(
    runId: string,
    attempt: number,
    seq: number,
    batch: { items: unknown[]; progress: ScanProgress | null },
  ): Promise<BatchAnswer> {
    const p = batch.progress;
    const response = await this.call('PUT', `/scanruns/${runId}/attempts/${attempt}/batches/${seq}`, {
      Items: batch.items,
      ...(p ? { Progress: { Done: p.done, Total: p.total, Found: p.found } } : {}),
    });
    const body = (await response.json()) as { Applied: boolean; StopRequested: boolean };
    return { applied: body.Applied, stopRequested: body.StopRequested };
  }

  async finish(runId: string, attempt: number, state: FinishState, error?: string): Promise<void> {
    const response = await this.call('POST', `/scanruns/${runId}/attempts/${attempt}/finish`, {
      State: state,
      ...(error ? { Error: error.slice(0, 4000) } : {}),
    });
    await response.body?.cancel();
  }
}
