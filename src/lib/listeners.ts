/**
 * An event one service raises and others follow, for services that would otherwise need each
 * other: the composition root creates it first and gives it to every constructor involved, and
 * the followers subscribe in theirs. Listeners run one after another in the order they subscribed;
 * the first error stops the rest and reaches the service that raised the event.
 */
export class Listeners<Args extends unknown[]> {
  private readonly listeners: ((...args: Args) => Promise<void>)[] = [];

  subscribe(listener: (...args: Args) => Promise<void>): void {
    this.listeners.push(listener);
  }

  /** Whether anyone follows the event (a service may have its own fallback when nobody does). */
  get followed(): boolean {
    return this.listeners.length > 0;
  }

  async notify(...args: Args): Promise<void> {
    for (const listener of this.listeners) await listener(...args);
  }
}
