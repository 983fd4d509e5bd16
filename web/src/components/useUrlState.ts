import { useCallback } from 'react';
import { useSearchParams } from 'react-router';

/**
 * Filters kept in the address: bookmarkable, and each change is a step the back button undoes.
 * `update` sets (string), repeats (list) or removes (undefined / empty string) parameters.
 */
export function useUrlState() {
  const [params, setParams] = useSearchParams();
  const update = useCallback(
    (changes: Record<string, string | readonly string[] | undefined>) => {
      setParams(
        (current) => {
          // From the address as it is now: React Router renders a navigation as a transition, so
          // `current` can still be the one before a change made a moment ago (a filter unticked
          // just before a slider is let go would come back).
          const next = new URLSearchParams(typeof window === 'undefined' ? current : window.location.search);
          for (const [key, value] of Object.entries(changes)) {
            next.delete(key);
            if (Array.isArray(value)) {
              // An empty list is kept as "Key=" so it differs from "not chosen" (the default).
              if (value.length === 0) next.set(key, '');
              for (const item of value) next.append(key, item);
            } else if (typeof value === 'string' && value !== '') next.set(key, value);
          }
          return next;
        },
        { preventScrollReset: true },
      );
    },
    [setParams],
  );
  return [params, update] as const;
}

/** The values of a repeated parameter that are among `allowed`; `fallback` when it is absent. */
export function listParam<T extends string>(
  params: URLSearchParams,
  key: string,
  allowed: readonly T[],
  fallback: readonly T[] = [],
): T[] {
  if (!params.has(key)) return [...fallback];
  return params.getAll(key).filter((value): value is T => (allowed as readonly string[]).includes(value));
}
