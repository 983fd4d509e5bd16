import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import type { RequestOf, ResponseOf } from '../../api/types';

export type ScanNodeList = ResponseOf<'listScanNodes'>;
export type ScanNode = ScanNodeList['Items'][number];
export type Enrolment = ResponseOf<'createScanNodeEnrolment', 201>;

const scanNodesKey = ['scannodes'] as const;

/** The organisation's nodes and the local node; refreshed so that Online/Offline stays true. */
export function useScanNodes() {
  return useQuery({
    queryKey: scanNodesKey,
    queryFn: ({ signal }) => api<ScanNodeList>('/scannodes', { signal }),
    refetchInterval: 15_000,
  });
}

export function useCreateEnrolment() {
  const client = useQueryClient();
  return useMutation({
    // The answer holds the one-time token: keep it no longer than the dialog that shows it.
    gcTime: 0,
    mutationFn: (body: RequestOf<'createScanNodeEnrolment'>) =>
      api<Enrolment>('/scannodes/enrolments', { method: 'POST', body }),
    onSuccess: () => client.invalidateQueries({ queryKey: scanNodesKey }),
  });
}

export function useRevokeScanNode() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<ScanNode>(`/scannodes/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    onSuccess: () => client.invalidateQueries({ queryKey: scanNodesKey }),
  });
}
