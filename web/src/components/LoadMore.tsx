import { Alert, Button, Group, Text } from '@mantine/core';
import { errorMessage } from '../api/client';

/** What a keyset-paged list query offers its footer (a TanStack infinite query fits). */
interface PagedQuery {
  error: unknown;
  isFetchNextPageError: boolean;
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage: () => unknown;
}

/** The footer of a paged table: how many are shown, "Load more", and a failed next page. */
export function LoadMore({
  query,
  shown,
  total,
  what,
}: {
  query: PagedQuery;
  shown: number;
  total?: number;
  what: string;
}) {
  return (
    <>
      {query.isFetchNextPageError && (
        <Alert color="red" variant="light">
          Could not load more {what}: {errorMessage(query.error)}
        </Alert>
      )}
      {shown > 0 && (
        <Group justify="space-between">
          <Text size="sm" c="dimmed" aria-live="polite">
            Showing {shown} of {total ?? shown}
          </Text>
          {query.hasNextPage && (
            <Button
              variant="default"
              onClick={() => query.fetchNextPage()}
              loading={query.isFetchingNextPage}
            >
              Load more
            </Button>
          )}
        </Group>
      )}
    </>
  );
}
