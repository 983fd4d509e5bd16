import { SimpleGrid, Skeleton, Stack, Text, Title } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { useFeedStatus } from '../../api/intel';
import { QueryError } from '../../components/QueryError';
import { FeedCard } from './FeedCard';
import { LoadFeedCard } from './LoadFeedCard';
import { LoadHistory } from './LoadHistory';
import { SyncCard } from './SyncCard';

export default function FeedStatusPage() {
  useDocumentTitle('Feed status · Rampart');
  const status = useFeedStatus();
  return (
    <Stack gap="lg">
      <div>
        <Title order={1}>Feed status</Title>
        <Text size="sm" c="dimmed">
          The public vulnerability intelligence Rampart holds (CVSS, EPSS, CISA KEV, advisories), where it
          came from and when it was loaded. It is shared by every organisation of this installation.
        </Text>
      </div>

      <Stack gap="sm" component="section" aria-labelledby="feeds-title">
        <Title order={2} size="h4" id="feeds-title">
          Feeds
        </Title>
        {status.isPending ? (
          <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} role="status" aria-label="Loading the feeds">
            {[1, 2, 3].map((key) => (
              <Skeleton key={key} height={180} />
            ))}
          </SimpleGrid>
        ) : status.isError ? (
          <QueryError error={status.error} onRetry={() => status.refetch()} />
        ) : (
          <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="md">
            {status.data.Items.map((item) => (
              <FeedCard key={item.Feed} item={item} />
            ))}
          </SimpleGrid>
        )}
      </Stack>

      <LoadFeedCard />

      {status.data && <SyncCard status={status.data} />}

      <Stack gap="sm" component="section" aria-labelledby="loads-title">
        <Title order={2} size="h4" id="loads-title">
          Recent loads
        </Title>
        <LoadHistory />
      </Stack>
    </Stack>
  );
}
