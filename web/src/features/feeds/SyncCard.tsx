import { Alert, Card, Code, List, Stack, Text, Title } from '@mantine/core';
import type { FeedStatus } from '../../api/intel';
import { DateTime } from '../../components/DateTime';
import { Fact } from '../../components/Fact';
import { IconAlertCircle } from '../../icons';

/** The scheduled download of feed files, when configured, and what went wrong the last time. */
export function SyncCard({ status }: { status: FeedStatus }) {
  const { SyncUrls: urls, SyncHours: hours, LastSync: last } = status;
  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="sync-title">
      <Title order={2} size="h4" id="sync-title" mb="sm">
        Scheduled sync
      </Title>
      <Stack gap="sm">
        {urls.length === 0 ? (
          <Text size="sm">
            Off: Rampart downloads nothing by itself. Load feed files above or with{' '}
            <Code>rampart intel load</Code>, or set <Code>RAMPART_INTEL_SYNC_URLS</Code> (and{' '}
            <Code>RAMPART_INTEL_SYNC_HOURS</Code>) to download them on a schedule.
          </Text>
        ) : (
          <>
            <Text size="sm">
              Every {hours ?? 24} {hours === 1 ? 'hour' : 'hours'}, Rampart downloads and loads:
            </Text>
            <List size="sm" spacing={2}>
              {urls.map((url) => (
                <List.Item key={url} style={{ overflowWrap: 'anywhere' }}>
                  <Code style={{ wordBreak: 'break-all' }}>{url}</Code>
                </List.Item>
              ))}
            </List>
          </>
        )}
        {last && (
          <Stack gap={4} component="dl" m={0}>
            <Fact label="Last sync started">
              <DateTime value={last.StartedAt} />
            </Fact>
            <Fact label="Finished">
              <DateTime value={last.FinishedAt} empty="Not yet" />
            </Fact>
          </Stack>
        )}
        {last && last.Errors.length > 0 && (
          <Alert color="red" variant="light" icon={<IconAlertCircle />} title="The last sync could not read">
            <List size="sm" spacing={4} style={{ overflowWrap: 'anywhere' }}>
              {last.Errors.map((error) => (
                <List.Item key={error.Url}>
                  <Code style={{ wordBreak: 'break-all' }}>{error.Url}</Code>: {error.Error}
                </List.Item>
              ))}
            </List>
          </Alert>
        )}
      </Stack>
    </Card>
  );
}
