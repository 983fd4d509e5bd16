import { Alert, Code, SimpleGrid, Skeleton, Stack, Text, Title } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { type FeedStatus, feedLabel, useFeedStatus } from '../../api/intel';
import { Day } from '../../components/Badges';
import { QueryError } from '../../components/QueryError';
import { daysBetween } from '../../dates';
import { IconAlertTriangle } from '../../icons';
import { counted } from '../../labels';
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
          <>
            {status.data.Stale && <StaleNotice status={status.data} />}
            <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="md">
              {status.data.Items.map((item) => (
                <FeedCard key={item.Feed} item={item} now={status.data.Now} />
              ))}
            </SimpleGrid>
          </>
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

/**
 * Says that the intelligence is dated — a knowledge base shipped long ago is not today's: scores
 * and KEV due dates miss what was published since. Judged by the server's clock.
 */
function StaleNotice({ status }: { status: FeedStatus }) {
  const stale = status.Items.filter((item) => item.Stale && item.DataDate);
  return (
    <Alert
      color="orange"
      variant="light"
      icon={<IconAlertTriangle />}
      title="The vulnerability intelligence is dated"
      data-testid="intel-stale"
    >
      <Stack gap={6}>
        <Text size="sm">
          On the server’s clock (<Day value={status.Now.slice(0, 10)} />) the data of{' '}
          {stale.map((item, i) => (
            <span key={item.Feed}>
              {i > 0 && (i === stale.length - 1 ? ' and ' : ', ')}
              {feedLabel(item.Feed)} (<Day value={item.DataDate?.slice(0, 10)} />,{' '}
              {counted(daysBetween(item.DataDate ?? status.Now, status.Now), 'day')})
            </span>
          ))}{' '}
          is more than {counted(status.StaleAfterDays, 'day')} old: risk scores, exploitation and KEV due
          dates miss what was published since.
        </Text>
        <Text size="sm">
          Let the scheduled sync reach the official sources or their mirrors (on unless{' '}
          <Code>RAMPART_INTEL_SYNC</Code> is off), load current feed files below or with{' '}
          <Code>rampart intel load</Code>, or set <Code>RAMPART_INTEL_SYNC_URLS</Code> to download files of
          your own on a schedule.
        </Text>
      </Stack>
    </Alert>
  );
}
