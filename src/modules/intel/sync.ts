import type { IntelService } from './service.js';
import type { IntelLoad } from './types.js';

export interface SyncOptions {
  urls: string[];
  /** Tests pass their own; real deployments use the global fetch. */
  fetch?: typeof fetch;
}

export interface SyncOutcome {
  loads: IntelLoad[];
  errors: { url: string; error: string }[];
}

/** The job kind of the scheduled sync, and the key of its system schedule. */
export const INTEL_SYNC_JOB = 'intel-sync';

/**
 * The download of configured feed URLs (RAMPART_INTEL_SYNC_URLS). When it runs is the system
 * schedule `intel-sync`'s to say (every RAMPART_INTEL_SYNC_HOURS, registered by src/background.ts):
 * the scheduler fires each period once across instances, and one worker runs its job.
 */
export class IntelSync {
  constructor(
    private readonly intel: IntelService,
    private readonly options: SyncOptions,
    private readonly log: (message: string, details?: Record<string, unknown>) => void = () => {},
  ) {}

  /** One sync: every URL in turn, each a load of its own; a failing URL does not stop the others. */
  async run(): Promise<SyncOutcome> {
    const outcome: SyncOutcome = { loads: [], errors: [] };
    await this.intel.recordSyncStarted();
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
      await this.intel.recordSyncFinished(outcome.errors);
    }
    return outcome;
  }
}
