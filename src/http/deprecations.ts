import type { DeprecationConfig } from '../config.js';
import type { Clock } from '../lib/clock.js';
import { AppError } from '../problems/app-error.js';
import { Problems } from '../problems/catalogue.js';

/**
 * The one registry of deprecated routes. Entries in code live in DEPRECATIONS below; operators
 * add more with RAMPART_DEPRECATIONS. `Path` is the route's path inside its channel, in the
 * OpenAPI style (`/users/{Id}`), matched case-insensitively.
 */
export const DEPRECATIONS: readonly DeprecationConfig[] = [];

export const DEFAULT_REMOVAL_DAYS = 30;

export interface ResolvedDeprecation {
  markedOn: string;
  removalOn: string;
  /** The replacement in the `latest` channel, e.g. `GET /api/latest/users`. */
  replacement: string;
}

function addDays(isoDate: string, days: number): string {
  const d = new Date(`${isoDate}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** `/users/:id` and `/users/{Id}` are the same route. */
export function normalisePath(path: string): string {
  return (
    path
      .replace(/:([A-Za-z0-9_]+)/g, '{$1}')
      .replace(/\{[^}]+\}/g, '{}')
      .replace(/\/+$/, '')
      .toLowerCase() || '/'
  );
}

export class DeprecationRegistry {
  private readonly entries = new Map<string, ResolvedDeprecation>();

  constructor(configs: readonly DeprecationConfig[]) {
    for (const c of configs) {
      this.entries.set(DeprecationRegistry.key(c.Channel, c.Method, c.Path), {
        markedOn: c.MarkedOn,
        removalOn: c.RemovalOn ?? addDays(c.MarkedOn, DEFAULT_REMOVAL_DAYS),
        replacement: c.Replacement,
      });
    }
  }

  private static key(channel: string, method: string, path: string): string {
    return `${channel} ${method.toUpperCase()} ${normalisePath(path)}`;
  }

  find(channel: string, method: string, path: string): ResolvedDeprecation | undefined {
    return this.entries.get(DeprecationRegistry.key(channel, method, path));
  }
}

export function deprecationHeader(d: ResolvedDeprecation): string {
  return (
    `This endpoint is deprecated and will be removed on ${d.removalOn}. ` +
    "Please see the 'latest' channel of the API documentation to find the endpoint replacement."
  );
}

/** Adds the `deprecated` header, or answers 410 once the removal date has come. */
export function checkDeprecation(d: ResolvedDeprecation, clock: Clock): { header: string } {
  const today = clock().toISOString().slice(0, 10);
  if (today >= d.removalOn) {
    throw AppError.of(
      Problems.Gone,
      `This endpoint was removed on ${d.removalOn}. Use ${d.replacement} instead; see the 'latest' channel of the API documentation.`,
      { replacement: d.replacement },
    );
  }
  return { header: deprecationHeader(d) };
}
