import { useQuery } from '@tanstack/react-query';
import { api } from './client';
import type { Vulnerability } from './types';

export const vulnerabilitiesKey = ['vulnerabilities'] as const;

/** The address of a vulnerability's page: its intelligence and the findings of it. */
export function vulnerabilityPath(id: string): string {
  return `/vulnerabilities/${encodeURIComponent(id)}`;
}

export function useVulnerability(id: string | undefined) {
  return useQuery({
    queryKey: [...vulnerabilitiesKey, id],
    queryFn: ({ signal }) =>
      api<Vulnerability>(`/vulnerabilities/${encodeURIComponent(id ?? '')}`, { signal }),
    enabled: !!id,
    staleTime: 5 * 60_000,
  });
}
