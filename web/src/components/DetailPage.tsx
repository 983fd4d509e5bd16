import { Anchor, Group, Stack } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { IconArrowLeft } from '../icons';
import { PageSkeleton } from './PageSkeleton';
import { QueryError } from './QueryError';

/** What a detail page reads of its query (a TanStack query fits). */
interface ItemQuery<T> {
  isPending: boolean;
  isError: boolean;
  error: unknown;
  data: T | undefined;
  refetch: () => unknown;
}

/**
 * The frame of a page about one item: the document's title, a link back to the list, then a
 * skeleton while it loads, the error with Retry, or the item's view.
 */
export function DetailPage<T>({
  query,
  title,
  back,
  children,
}: {
  query: ItemQuery<T>;
  /** The item's name once loaded, else what it is ("Asset"). */
  title: string;
  back?: { to: string; label: string };
  children: (item: T) => ReactNode;
}) {
  useDocumentTitle(`${title} · Rampart`);
  return (
    <Stack gap="lg">
      {back && (
        <Anchor component={Link} to={back.to} size="sm">
          <Group gap={4} component="span">
            <IconArrowLeft size={14} aria-hidden />
            {back.label}
          </Group>
        </Anchor>
      )}
      {query.isPending ? (
        <PageSkeleton />
      ) : query.isError ? (
        <QueryError error={query.error} onRetry={() => query.refetch()} />
      ) : query.data === undefined ? null : (
        children(query.data)
      )}
    </Stack>
  );
}
