import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { api } from './client';
import type { ResponseOf } from './types';

/** A scan's run state, the same for every kind. */
export type RunState = ResponseOf<'listDiscoveryScans'>['Items'][number]['RunState'];

/** A run still under way: the page follows it. */
export function isActive(state: RunState | undefined): boolean {
  return state === 'Queued' || state === 'Running' || state === 'Stopping';
}

/** What every scan kind's answer has in common: the list and the scan page read only this. */
interface ScanLike {
  Id: string;
  Name: string;
  RunState: RunState;
}

interface Page<T> {
  Items: T[];
  NextCursor?: string | null;
  TotalCount?: number;
}

function useInvalidate(key: readonly string[]) {
  const client = useQueryClient();
  return () => client.invalidateQueries({ queryKey: key });
}

// When a run ends, its results (services and findings made by the import) are out of date.
function useRefreshWhenEnded(key: readonly string[], state: RunState | undefined) {
  const client = useQueryClient();
  const previous = useRef(state);
  useEffect(() => {
    const was = previous.current;
    previous.current = state;
    if (isActive(was) && !isActive(state)) {
      for (const k of [key, ['findings'], ['assets'], ['imports'], ['tickets']]) {
        void client.invalidateQueries({ queryKey: k });
      }
    }
  }, [client, key, state]);
}

interface RunResults {
  Run?: { State?: string };
  Import?: { Id: string } | null;
}

/** The import a completed run's results became, once there is one. */
function resultsOf(data: unknown): string | null {
  return (data as RunResults | undefined)?.Import?.Id ?? null;
}

// A run's results become findings in a job after the run ends: until then the page keeps asking.
function awaitingResults(data: unknown): boolean {
  const report = data as RunResults | undefined;
  return report?.Run?.State === 'Completed' && !report.Import;
}

// Once a run's results are findings, the findings lists (the scan's own too) are out of date.
function useRefreshWhenIngested(importId: string | null) {
  const client = useQueryClient();
  const previous = useRef(importId);
  useEffect(() => {
    const was = previous.current;
    previous.current = importId;
    if (importId && importId !== was) {
      for (const k of [['findings'], ['assets'], ['imports'], ['tickets']]) {
        void client.invalidateQueries({ queryKey: k });
      }
    }
  }, [client, importId]);
}

/** The hooks of one scan kind, as `scanHooks` makes them. */
export type ScanHooks<Scan extends ScanLike, Body, Latest = unknown> = ReturnType<
  typeof scanHooks<Scan, Body, Latest>
>;

/**
 * The hooks of one scan kind's routes (`/discoveryscans`, `/systemscans`, `/webscans`): list, one
 * scan, its latest run's results, save, start, stop and delete. The kinds answer the same way, only
 * their bodies and results differ, and a discovery run starts at `/runs` where the others start at
 * `/start`.
 */
export function scanHooks<Scan extends ScanLike, Body, Latest>(
  path: string,
  name: string,
  startAt: 'start' | 'runs' = 'start',
) {
  const key = [name] as const;
  const one = (id: string) => `${path}/${encodeURIComponent(id)}`;

  return {
    key,
    useList(query: Record<string, string | undefined> = {}) {
      return useInfiniteQuery({
        queryKey: [...key, 'list', query],
        queryFn: ({ pageParam, signal }) =>
          api<Page<Scan>>(path, { query: { ...query, PageSize: 50, Cursor: pageParam }, signal }),
        initialPageParam: undefined as string | undefined,
        getNextPageParam: (last) => last.NextCursor ?? undefined,
        refetchInterval: (q) =>
          q.state.data?.pages.some((p) => p.Items.some((s) => isActive(s.RunState))) ? 2000 : false,
      });
    },
    /** One scan, asked again every second while a run is under way. */
    useOne(id: string) {
      const query = useQuery({
        queryKey: [...key, 'detail', id],
        queryFn: ({ signal }) => api<Scan>(one(id), { signal }),
        refetchInterval: (q) => (isActive(q.state.data?.RunState) ? 1000 : false),
        enabled: !!id,
      });
      useRefreshWhenEnded(key, query.data?.RunState);
      return query;
    },
    /** The latest run with what it found; followed while the scan runs and its results become findings. */
    useLatestRun(id: string, active: boolean) {
      const query = useQuery({
        queryKey: [...key, 'latest', id],
        queryFn: ({ signal }) => api<Latest>(`${one(id)}/runs/latest`, { signal }),
        refetchInterval: (q) => (active || awaitingResults(q.state.data) ? 2000 : false),
        retry: false,
      });
      useRefreshWhenIngested(resultsOf(query.data));
      return query;
    },
    useSave(id?: string) {
      const invalidate = useInvalidate(key);
      return useMutation({
        mutationFn: (body: Body) =>
          id ? api<Scan>(one(id), { method: 'PUT', body }) : api<Scan>(path, { method: 'POST', body }),
        onSuccess: invalidate,
      });
    },
    useStart() {
      const invalidate = useInvalidate(key);
      return useMutation({
        mutationFn: (id: string) => api<unknown>(`${one(id)}/${startAt}`, { method: 'POST' }),
        onSuccess: invalidate,
      });
    },
    useStop() {
      const invalidate = useInvalidate(key);
      return useMutation({
        mutationFn: (id: string) => api<unknown>(`${one(id)}/stop`, { method: 'POST' }),
        onSuccess: invalidate,
      });
    },
    useDelete() {
      const invalidate = useInvalidate(key);
      return useMutation({
        mutationFn: (id: string) => api<void>(one(id), { method: 'DELETE' }),
        onSuccess: invalidate,
      });
    },
  };
}

export type ScanKind = 'Discovery' | 'System' | 'Web';

/** A kind's templates as select options (built-in and the organisation's own). */
export function useTemplateOptions(kind: ScanKind) {
  return useQuery({
    queryKey: ['scan-templates', kind],
    queryFn: ({ signal }) =>
      api<ResponseOf<'listScanTemplates'>>('/scantemplates', { query: { Kind: kind }, signal }),
    select: (page) => page.Items.map((t) => ({ value: t.Id, label: t.Name })),
    staleTime: 60_000,
  });
}

/** The nodes that serve a kind, not revoked, as select options. */
export function useNodeOptions(kind: ScanKind) {
  return useQuery({
    queryKey: ['scan-nodes', 'list'],
    queryFn: ({ signal }) => api<ResponseOf<'listScanNodes'>>('/scannodes', { signal }),
    select: (page) =>
      page.Items.filter((n) => n.Kinds.includes(kind) && !n.RevokedAt).map((n) => ({
        value: n.Id,
        label: `${n.Name} (${n.State})`,
      })),
  });
}

/** One target per line: a range, optionally followed by a name after whitespace. */
export function parseTargetLines(text: string): { Range: string; Name?: string }[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .map((line) => {
      const [range, ...name] = line.split(/\s+/);
      return name.length > 0 ? { Range: range ?? '', Name: name.join(' ') } : { Range: range ?? '' };
    });
}

export function splitLines(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}
