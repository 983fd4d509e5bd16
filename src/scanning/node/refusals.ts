import type { RefusedAddress, RunContext, TargetRefusal } from '../types.js';

/** Refused addresses named in the message of a run that refused every one. */
const NAMED_IN_MESSAGE = 5;

/**
 * A run's refused addresses, reported among its results (RefusedAddress items) as they happen, so
 * that the run and its page name each one rather than only the node's log. A run that refused
 * every address and scanned none fails with them named: it did nothing, and a Completed run with
 * no hosts would read as a clean network.
 */
export class RunRefusalReport {
  private count = 0;
  private readonly named: string[] = [];
  private sent: Promise<void> = Promise.resolve();
  private failure: { error: unknown } | null = null;

  constructor(private readonly context: RunContext) {}

  /** An address the policy refused (before any packet), or a target name that did not resolve. */
  refused = (address: string, refusal: TargetRefusal): void => {
    this.count++;
    // Refusals are sentences that name their address; one that does not is prefixed with it.
    if (this.named.length < NAMED_IN_MESSAGE)
      this.named.push(refusal.message.includes(address) ? refusal.message : `${address}: ${refusal.message}`);
    this.context.log('address refused', { address, rule: refusal.rule });
    const item: RefusedAddress = { refused: true, address, rule: refusal.rule, message: refusal.message };
    // In order, one after the other: emit may wait while a full batch goes. A failure is kept
    // for finish (never left unhandled when the engine stops first).
    this.sent = this.sent
      .then(() => this.context.emit([item]))
      .catch((error: unknown) => {
        this.failure ??= { error };
      });
  };

  /** Waits until every refusal went out; throws when nothing was scanned and something was refused. */
  async finish(scanned: number): Promise<void> {
    await this.sent;
    if (this.failure) throw this.failure.error;
    if (scanned > 0 || this.count === 0) return;
    const more = this.count > this.named.length ? ` And ${this.count - this.named.length} more.` : '';
    throw new Error(
      `Nothing was scanned: every address of this run was refused (${this.count}). ${this.named.join(' ')}${more}`,
    );
  }
}

/** A target name that did not resolve, as a refusal the run names. */
export function unresolved(name: string, error: unknown): TargetRefusal {
  const reason = error instanceof Error ? error.message : String(error);
  return { rule: 'Unresolved', message: `The host name ${name} did not resolve (${reason.slice(0, 200)}).` };
}
