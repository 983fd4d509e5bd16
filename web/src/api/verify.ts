import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from './client';
import type { ResponseOf } from './types';

/** What a Verify started (one run per scan that found the findings) and what it could not verify. */
export type VerifyResult = ResponseOf<'verifyFindings', 202>;
export type VerifyRun = VerifyResult['Runs'][number];
export type VerifySkip = VerifyResult['Skipped'][number];

// A Verify starts runs: the scans' pages and lists follow them.
function useInvalidateScans() {
  const client = useQueryClient();
  return () =>
    Promise.all([
      client.invalidateQueries({ queryKey: ['system-scans'] }),
      client.invalidateQueries({ queryKey: ['web-scans'] }),
    ]);
}

/** Scans again, where they were found, only the ports or URLs of these findings. */
export function useVerifyFindings() {
  const invalidate = useInvalidateScans();
  return useMutation({
    mutationFn: (findingIds: string[]) =>
      api<VerifyResult>('/findings/verify', { method: 'POST', body: { FindingIds: findingIds } }),
    onSuccess: () => invalidate(),
  });
}

/** Verifies every finding linked to the ticket. */
export function useVerifyTicket(ticketId: string) {
  const invalidate = useInvalidateScans();
  return useMutation({
    mutationFn: () =>
      api<VerifyResult>(`/tickets/${encodeURIComponent(ticketId)}/verify`, { method: 'POST' }),
    onSuccess: () => invalidate(),
  });
}

/** Where a run's scan lives in the web app. */
export function scanPath(run: Pick<VerifyRun, 'Kind' | 'ScanId'>): string {
  return `${run.Kind === 'Web' ? '/web-scans' : '/system-scans'}/${encodeURIComponent(run.ScanId)}`;
}
