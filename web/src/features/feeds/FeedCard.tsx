import { Badge, Card, Group, Stack, Text, Title } from '@mantine/core';
import { FEEDS, type FeedName, type FeedStatus } from '../../api/intel';
import { DateTime } from '../../components/DateTime';
import { Fact } from '../../components/Fact';
import { daysBetween } from '../../dates';
import { counted } from '../../labels';
import { ImportStateBadge } from '../imports/ImportStateBadge';
import { DataDate } from './LoadResult';

type Item = FeedStatus['Items'][number];

/** One feed: the records held, how current they are, its last load and its last completed one. */
export function FeedCard({ item, now }: { item: Item; now: string }) {
  const feed = FEEDS[item.Feed as FeedName] ?? { label: item.Feed, description: '' };
  const titleId = `feed-${item.Feed}-title`;
  const last = item.LastLoad;
  const completed = item.LastCompletedLoad;
  return (
    <Card withBorder padding="md" radius="md" component="section" aria-labelledby={titleId}>
      <Group justify="space-between" align="flex-start" wrap="nowrap" gap="xs">
        <div style={{ minWidth: 0 }}>
          <Title order={3} size="h5" id={titleId}>
            {feed.label}
          </Title>
          <Text size="xs" c="dimmed">
            {feed.description}
          </Text>
        </div>
        {last && <ImportStateBadge state={last.State} />}
      </Group>
      <Text fz={28} fw={700} lh={1.3} mt="xs" style={{ fontVariantNumeric: 'tabular-nums' }}>
        {item.Records.toLocaleString()}
        <Text component="span" size="sm" c="dimmed" fw={400}>
          {' '}
          {item.Records === 1 ? 'record' : 'records'}
        </Text>
      </Text>
      {item.Records > 0 && (
        <Group gap="xs" mt={2} data-testid={`feed-${item.Feed}-date`}>
          <Text size="sm">
            <Text component="span" size="sm" c="dimmed">
              Data of{' '}
            </Text>
            <DataDate value={item.DataDate} />
          </Text>
          {item.Stale && item.DataDate && (
            <Badge color="orange" variant="light">
              {counted(daysBetween(item.DataDate, now), 'day')} old
            </Badge>
          )}
        </Group>
      )}
      {last ? (
        <Stack gap={4} component="dl" m={0} mt="xs">
          <Fact label="Last load" width={104}>
            <DateTime value={last.StartedAt} />
          </Fact>
          <Fact label="File" width={104}>
            {last.Source}
          </Fact>
          <Fact label="File dated" width={104}>
            <DataDate value={last.DataDate} />
          </Fact>
          {last.State === 'Completed' && (
            <Fact label="Changes" width={104}>
              {last.Added.toLocaleString()} added, {last.Updated.toLocaleString()} updated,{' '}
              {last.Unchanged.toLocaleString()} unchanged
              {last.Skipped > 0 && `, ${last.Skipped.toLocaleString()} skipped`}
            </Fact>
          )}
          {last.Error && (
            <Fact label="Error" width={104}>
              <Text component="span" size="sm" c="red">
                {last.Error}
              </Text>
            </Fact>
          )}
          {completed && completed.Id !== last.Id && (
            <Fact label="Last completed" width={104}>
              <DateTime value={completed.FinishedAt} />
            </Fact>
          )}
          {!completed && (
            <Fact label="Last completed" width={104}>
              None yet
            </Fact>
          )}
        </Stack>
      ) : (
        <Text size="sm" c="dimmed" mt="xs">
          Never loaded.
        </Text>
      )}
    </Card>
  );
}
