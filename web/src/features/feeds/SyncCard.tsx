import { Alert, Card, Code, List, Stack, Table, Text, Title } from '@mantine/core';
import type { FeedStatus } from '../../api/intel';
import { DateTime } from '../../components/DateTime';
import { Fact } from '../../components/Fact';
import { TableHead } from '../../components/TableHead';
import { IconAlertCircle } from '../../icons';

type Source = FeedStatus['Sources'][number];

const SOURCE_NAMES: Record<string, string> = { nvd: 'NVD CVE API', kev: 'CISA KEV', epss: 'FIRST EPSS' };

/** 'osv:Debian' → 'OSV Debian'. */
function sourceName(source: string): string {
  return source.startsWith('osv:') ? `OSV ${source.slice(4)}` : (SOURCE_NAMES[source] ?? source);
}

/** Where a source stands: the NVD window under way, resumed at its next record by the next sync. */
function progress(s: Source): string {
  if (!s.Progress) return s.SyncedUntil ? 'Up to date' : '—';
  const { WindowStart, NextIndex, TotalResults } = s.Progress;
  const what = WindowStart ? 'Changes since the last sync' : 'First full load';
  const of = TotalResults === null ? '' : ` of ${TotalResults.toLocaleString()}`;
  return `${what}: record ${NextIndex.toLocaleString()}${of} next`;
}

/** Each official source: its last sync, its progress and its last error. */
function SourcesTable({ sources }: { sources: Source[] }) {
  return (
    <Table.ScrollContainer minWidth={700}>
      <Table verticalSpacing={6} horizontalSpacing="sm" fz="sm" aria-label="Sources">
        <TableHead columns={['Source', 'Last synced', 'Progress', 'Last error']} />
        <Table.Tbody>
          {sources.map((s) => (
            <Table.Tr key={s.Source} data-testid={`sync-source-${s.Source}`}>
              <Table.Td title={s.Url ?? undefined}>{sourceName(s.Source)}</Table.Td>
              <Table.Td>
                <DateTime value={s.LastSuccessAt} empty="Never" />
              </Table.Td>
              <Table.Td>{progress(s)}</Table.Td>
              <Table.Td style={{ overflowWrap: 'anywhere' }}>
                {s.LastError ? (
                  <Text c="red" size="sm">
                    {s.LastError}
                  </Text>
                ) : (
                  '—'
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/** The scheduled sync: the official sources (unless off), extra feed URLs, and what went wrong. */
export function SyncCard({ status }: { status: FeedStatus }) {
  const { SyncUrls: urls, SyncHours: hours, LastSync: last, SyncEnabled: enabled, Sources: sources } = status;
  const every = `${hours ?? 24} ${hours === 1 ? 'hour' : 'hours'}`;
  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="sync-title">
      <Title order={2} size="h4" id="sync-title" mb="sm">
        Scheduled sync
      </Title>
      <Stack gap="sm">
        {enabled ? (
          <Text size="sm">
            Every {every}, Rampart syncs the official sources (or the mirrors configured): the NVD CVE API,
            CISA KEV, EPSS and OSV per ecosystem. A sync that stops resumes where it stopped.
          </Text>
        ) : (
          <Text size="sm">
            Off (<Code>RAMPART_INTEL_SYNC=off</Code>): Rampart fetches nothing from the official sources. Load
            feed files above or with <Code>rampart intel load</Code>.
          </Text>
        )}
        {sources.length > 0 && <SourcesTable sources={sources} />}
        {urls.length > 0 && (
          <>
            <Text size="sm">Every {every}, Rampart also downloads and loads:</Text>
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
