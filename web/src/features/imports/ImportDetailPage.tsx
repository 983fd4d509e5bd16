import { Alert, Anchor, Card, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { Link, useParams } from 'react-router';
import { type Import, useImport, useImportFormats } from '../../api/imports';
import { DateTime } from '../../components/DateTime';
import { DetailPage } from '../../components/DetailPage';
import { Fact } from '../../components/Fact';
import { IconCopy } from '../../icons';
import { formatBytes, formatDuration, importName } from './format';
import { ImportResult } from './ImportResult';
import { ImportStateBadge } from './ImportStateBadge';

export default function ImportDetailPage() {
  const { id = '' } = useParams();
  const item = useImport(id);
  return (
    <DetailPage
      query={item}
      title={item.data ? importName(item.data) : 'Import'}
      back={{ to: '/imports', label: 'All imports' }}
    >
      {(data) => <ImportView item={data} />}
    </DetailPage>
  );
}

function ImportView({ item }: { item: Import }) {
  const formats = useImportFormats().data;
  const format = formats?.find((f) => f.Format === item.Format);
  const confidence =
    item.FormatConfidence === null || item.FormatConfidence >= 1
      ? ''
      : ` (detected, ${Math.round(item.FormatConfidence * 100)} % sure)`;
  return (
    <Stack gap="lg">
      <div>
        <Group gap="sm" align="center">
          <Title order={1} style={{ overflowWrap: 'anywhere' }}>
            {importName(item)}
          </Title>
          <div aria-live="polite">
            <ImportStateBadge state={item.State} attention={item.Attention} />
          </div>
        </Group>
        <Text size="sm" c="dimmed">
          {format?.Tool ?? item.Format ?? 'Unknown format'} report of {formatBytes(item.FileSize)}, imported{' '}
          <DateTime value={item.CreatedAt} />
        </Text>
      </div>

      {item.SameFileAs && (
        <Alert variant="light" color="blue" icon={<IconCopy />} title="The same file as an earlier import">
          This file has the same SHA-256 as the{' '}
          <Anchor component={Link} to={`/imports/${item.SameFileAs.Id}`} inherit>
            import of <DateTime value={item.SameFileAs.CreatedAt} />
          </Anchor>
          . It was imported again all the same: its findings count as seen again.
        </Alert>
      )}

      <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="result-title">
        <Title order={2} size="h4" id="result-title" mb="sm">
          Result
        </Title>
        <ImportResult item={item} />
      </Card>

      <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="details-title">
        <Title order={2} size="h4" id="details-title" mb="sm">
          Details
        </Title>
        <SimpleGrid cols={{ base: 1, md: 2 }} spacing="xs">
          <Stack gap={6} component="dl" m={0}>
            <Fact label="Format">
              {format?.Label ?? item.Format ?? '—'}
              {confidence}
            </Fact>
            <Fact label="Scope">{item.ScopeName ?? 'The report’s tool on its assets'}</Fact>
            <Fact label="File size">{formatBytes(item.FileSize)}</Fact>
            <Fact label="SHA-256">
              <Text component="span" ff="monospace" size="xs" style={{ wordBreak: 'break-all' }}>
                {item.FileSha256}
              </Text>
            </Fact>
          </Stack>
          <Stack gap={6} component="dl" m={0}>
            <Fact label="Submitted">
              <DateTime value={item.CreatedAt} />
            </Fact>
            <Fact label="Started">
              <DateTime value={item.StartedAt} empty="Not yet" />
            </Fact>
            <Fact label="Finished">
              <DateTime value={item.FinishedAt} empty="Not yet" />
            </Fact>
            <Fact label="Duration">
              {formatDuration(item.DurationMs)}
              {item.Counts.ParseMs !== undefined &&
                ` (reading ${formatDuration(item.Counts.ParseMs)}, merging ${formatDuration(item.Counts.MergeMs)})`}
            </Fact>
          </Stack>
        </SimpleGrid>
      </Card>
    </Stack>
  );
}
