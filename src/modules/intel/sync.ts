import { randomUUID } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import type { IntelService } from './service.js';
import type { IntelLoad } from './types.js';

export interface SyncOptions {
  urls: string[];
  hours: number;
  /** Tests pass their own; real deployments use the global fetch. */
  fetch?: typeof fetch;
}

export interface SyncOutcome {
  ran: boolean;
  loads: IntelLoad[];
  errors: { url: string; error: string }[];
}

/**
 * The scheduled download of configured feed URLs (RAMPART_INTEL_SYNC_URLS; off when none). Every
 * instance runs the timer; a lease row makes one of them sync per period.
 */
export class IntelSync {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<SyncOutcome> | undefined;
  private readonly holder = randomUUID();

  constructor(
    private readonly intel: IntelService,
    private readonly clock: Clock,
    private readonly options: SyncOptions,
    private readonly log: (message: string, details?: Record<string, unknown>) => void = () => {},
  ) {}

  /** Syncs now (when due) and then every `hours`. */
  start(): void {
    if (this.options.urls.length === 0 || this.timer) return;
    const tick = () => {
      this.runOnce().catch((error) => this.log('intel sync failed', { error: (error as Error).message }));
    };
    tick();
    // Checked hourly: the lease decides whether a sync is due, so a restart does not re-download.
    this.timer = setInterval(tick, 3_600_000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => {});
  }

  /** One sync: every URL in turn, each a load of its own; a failing URL does not stop the others. */
  runOnce(): Promise<SyncOutcome> {
    this.running ??= this.sync().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async sync(): Promise<SyncOutcome> {
    const now = this.clock();
    const period = this.options.hours * 3_600_000;
    const taken = await this.intel.takeSyncLease(
      this.holder,
      now,
      new Date(now.getTime() + 6 * 3_600_000),
      new Date(now.getTime() - period + 60_000),
    );
    if (!taken) return { ran: false, loads: [], errors: [] };
    const outcome: SyncOutcome = { ran: true, loads: [], errors: [] };
    try {
      for (const url of this.options.urls) {
        try {
          const load = await this.intel.loadUrl(url, this.options.fetch);
          outcome.loads.push(load);
          this.log('intel feed synced', { url, state: load.state, added: load.added, updated: load.updated });
        } catch (error) {
          const message = (error as Error).message ?? String(error);
          outcome.errors.push({ url, error: message });
          this.log('intel feed sync failed', { url, error: message });
        }
      }
    } finally {
      await this.intel.releaseSyncLease(this.holder, this.clock(), outcome.errors);
    }
    return outcome;
  }
}
