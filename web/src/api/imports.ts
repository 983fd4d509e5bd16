import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { api } from './client';
import type { FindingFilter, Import, ImportFormat, ImportPage, ImportState, Problem } from './types';
import { uploadFile } from './upload';

export type { Import, ImportAttention, ImportCounts, ImportFormat, ImportState } from './types';

/** The findings an import created, fixed or reopened (the findings list's ImportChange). */
export type ImportChange = NonNullable<FindingFilter['ImportChange']>;
export const IMPORT_CHANGES: readonly ImportChange[] = ['New', 'Fixed', 'Reopened'];

/** The 422 `unknown-report-format` problem names the formats Rampart reads. */
export type UnknownFormatProblem = Problem & { formats?: string[] };

export const importsKey = ['imports'] as const;
const PAGE_SIZE = 25;

/** Still to end: the server has the report and reads it, or will. */
export function isActive(state: ImportState | undefined): boolean {
  return state === 'Queued' || state === 'Running';
}

/** The address of the findings list that shows what an import changed. */
export function importFindingsPath(id: string, change: ImportChange): string {
  return `/findings?${new URLSearchParams({ ImportId: id, ImportChange: change })}`;
}

export function useImports() {
  return useInfiniteQuery({
    queryKey: [...importsKey, 'list'],
    queryFn: ({ pageParam, signal }) =>
      api<ImportPage>('/imports', { query: { PageSize: PAGE_SIZE, Cursor: pageParam }, signal }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.NextCursor ?? undefined,
    // Imports started elsewhere (the CLI, CI pipelines) move on by themselves: follow them.
    refetchInterval: (query) =>
      query.state.data?.pages.some((page) => page.Items.some((item) => isActive(item.State))) ? 2000 : false,
  });
}

/** One import, asked again every second until it has ended. */
export function useImport(id: string) {
  const query = useQuery({
    queryKey: [...importsKey, 'detail', id],
    queryFn: ({ signal }) => api<Import>(`/imports/${encodeURIComponent(id)}`, { signal }),
    refetchInterval: (q) => (isActive(q.state.data?.State) ? 1000 : false),
    enabled: !!id,
  });
  useRefreshWhenEnded(query.data);
  return query;
}

// When an import ends, what it changed is out of date: imports, findings (and the overview's
// counts), assets, and the tickets that follow their findings.
function useRefreshWhenEnded(current: Import | undefined) {
  const client = useQueryClient();
  const previous = useRef(current?.State);
  useEffect(() => {
    const was = previous.current;
    previous.current = current?.State;
    if (current && isActive(was) && !isActive(current.State)) {
      for (const key of [importsKey, ['findings'], ['assets'], ['tickets']]) {
        void client.invalidateQueries({ queryKey: key });
      }
    }
  }, [client, current]);
}

export function useImportFormats() {
  return useQuery({
    queryKey: [...importsKey, 'formats'],
    queryFn: ({ signal }) => api<ImportFormat[]>('/imports/formats', { signal }),
    staleTime: 60 * 60_000,
  });
}

export interface UploadOptions {
  /** Left out: the server detects the format from the content. */
  format?: string;
  scopeName?: string;
  signal?: AbortSignal;
}

/**
 * Sends a report as the raw request body. `onProgress` gets the share sent, 0..1. Resolves with
 * the Queued import; a refusal rejects with an ApiError, an abort with an AbortError.
 */
export function uploadReport(
  file: File,
  options: UploadOptions,
  onProgress: (fraction: number) => void,
): Promise<Import> {
  return uploadFile<Import>({
    path: '/imports',
    file,
    query: {
      Format: options.format,
      ScopeName: options.scopeName,
      FileName: file.name ? file.name.slice(0, 255) : undefined,
    },
    signal: options.signal,
    onProgress,
  });
}
