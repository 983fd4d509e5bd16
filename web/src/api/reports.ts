import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from './client';
import type { RequestOf, ResponseOf } from './types';

export type ReportPage = ResponseOf<'listReports'>;
export type Report = ReportPage['Items'][number];
export type ReportState = Report['State'];
export type ReportKind = Report['Kind'];
export type ReportFormat = Report['Format'];
export type NewReport = RequestOf<'createReport'>;
export type ReportDefinitionPage = ResponseOf<'listReportDefinitions'>;
export type ReportDefinition = ReportDefinitionPage['Items'][number];
export type ReportDefinitionBody = RequestOf<'createReportDefinition'>;

export const reportsKey = ['reports'] as const;
const PAGE_SIZE = 25;

/** Still being made: a job has it, or will. */
export const isActive = (state: ReportState | undefined) => state === 'Queued' || state === 'Running';

/** Where a completed report downloads from (the session cookie authenticates a plain link). */
export const downloadPath = (id: string) => `/api/latest/reports/${encodeURIComponent(id)}/download`;

/** The report history, newest first, asked again every second while a report is being made. */
export function useReports() {
  return useInfiniteQuery({
    queryKey: [...reportsKey, 'list'],
    queryFn: ({ pageParam, signal }) =>
      api<ReportPage>('/reports', { query: { PageSize: PAGE_SIZE, Cursor: pageParam }, signal }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.NextCursor ?? undefined,
    refetchInterval: (query) =>
      query.state.data?.pages.some((page) => page.Items.some((r) => isActive(r.State))) ? 1000 : false,
  });
}

export function useCreateReport() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: NewReport) => api<Report>('/reports', { method: 'POST', body }),
    onSuccess: () => client.invalidateQueries({ queryKey: reportsKey }),
  });
}

export function useDeleteReport() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<void>(`/reports/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    onSuccess: () => client.invalidateQueries({ queryKey: reportsKey }),
  });
}

export function useReportDefinitions() {
  return useInfiniteQuery({
    queryKey: [...reportsKey, 'definitions'],
    queryFn: ({ pageParam, signal }) =>
      api<ReportDefinitionPage>('/reportdefinitions', {
        query: { PageSize: PAGE_SIZE, Cursor: pageParam },
        signal,
      }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.NextCursor ?? undefined,
  });
}

export function useCreateDefinition() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: ReportDefinitionBody) =>
      api<ReportDefinition>('/reportdefinitions', { method: 'POST', body }),
    onSuccess: () => client.invalidateQueries({ queryKey: reportsKey }),
  });
}

export function useDeleteDefinition() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      api<void>(`/reportdefinitions/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    onSuccess: () => client.invalidateQueries({ queryKey: reportsKey }),
  });
}

export function useRunDefinition() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      api<Report>(`/reportdefinitions/${encodeURIComponent(id)}/run`, { method: 'POST' }),
    onSuccess: () => client.invalidateQueries({ queryKey: reportsKey }),
  });
}
