import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { api } from './client';
import type { QueryOf, ResponseOf } from './types';

export type AuditPage = ResponseOf<'listAuditLog'>;
export type AuditEntry = AuditPage['Items'][number];
/** The filters the audit log page offers (the list's query but its paging). */
export type AuditFilter = Omit<QueryOf<'listAuditLog'>, 'PageSize' | 'Cursor'>;

export const auditLogKey = ['auditlog'] as const;
const PAGE_SIZE = 50;

function auditQuery(filter: AuditFilter) {
  return Object.fromEntries(
    Object.entries(filter).filter(([, value]) => value !== undefined && value !== ''),
  );
}

export function useAuditLog(filter: AuditFilter) {
  return useInfiniteQuery({
    queryKey: [...auditLogKey, filter],
    queryFn: ({ pageParam, signal }) =>
      api<AuditPage>('/auditlog', {
        query: { ...auditQuery(filter), PageSize: PAGE_SIZE, Cursor: pageParam },
        signal,
      }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.NextCursor ?? undefined,
    placeholderData: keepPreviousData,
  });
}

/** Every entry that matches, as CSV (the download is itself recorded in the log). */
export function downloadAuditLogCsv(filter: AuditFilter) {
  return api<Blob>('/auditlog', { query: auditQuery(filter), accept: 'text/csv' });
}
