import { Anchor, Badge, Card, Group, List, Paper, SimpleGrid, Stack, Table, Text } from '@mantine/core';
import { useDisclosure, useDocumentTitle } from '@mantine/hooks';
import { Link, useParams } from 'react-router';
import { isActive } from '../../api/discovery';
import { useNodeOptions, useTemplateOptions } from '../../api/scans';
import { type WebLatestRun, type WebScan, type WebUrl, webScans } from '../../api/webscans';
import { Fact } from '../../components/Fact';
import { PageSkeleton } from '../../components/PageSkeleton';
import { QueryError } from '../../components/QueryError';
import { IconArrowLeft } from '../../icons';
import { ScanFindings } from '../scans/ScanFindings';
import {
  ImportCounts,
  LatestRunQuery,
  labelOf,
  RunHeading,
  ScanHeader,
  ScheduleText,
} from '../scans/ScanParts';
import { WebScanFormModal } from './WebScanFormModal';

export default function WebScanPage() {
  const { id = '' } = useParams();
  const scan = webScans.useOne(id);
  useDocumentTitle(`${scan.data?.Name ?? 'Web scan'} · Rampart`);
  return (
    <Stack gap="lg">
      <Anchor component={Link} to="/web-scans" size="sm">
        <Group gap={4} component="span">
          <IconArrowLeft size={14} aria-hidden />
          All web scans
        </Group>
      </Anchor>
      {scan.isPending ? (
        <PageSkeleton />
      ) : scan.isError ? (
        <QueryError error={scan.error} onRetry={() => scan.refetch()} />
      ) : (
        <ScanView scan={scan.data} />
      )}
    </Stack>
  );
}

function ScanView({ scan }: { scan: WebScan }) {
  const templates = useTemplateOptions('Web').data;
  const nodes = useNodeOptions('Web').data;
  const [editOpened, edit] = useDisclosure(false);
  const start = webScans.useStart();
  const stop = webScans.useStop();
  const remove = webScans.useDelete();
  const latest = webScans.useLatestRun(scan.Id, isActive(scan.RunState));
  return (
    <Stack gap="lg">
      <ScanHeader
        scan={scan}
        what="web scan"
        listPath="/web-scans"
        start={start}
        stop={stop}
        remove={remove}
        onEdit={edit.open}
      />
      <Card withBorder radius="md">
        <SimpleGrid cols={{ base: 1, md: 2 }} spacing="xs" component="dl" m={0}>
          <Fact label="URLs">
            <span style={{ fontFamily: 'var(--mantine-font-family-monospace)' }}>{scan.Urls.join(', ')}</span>
          </Fact>
          <Fact label="Template">{labelOf(templates, scan.TemplateId)}</Fact>
          <Fact label="Scan node">{labelOf(nodes, scan.ScanNodeId) ?? 'Any node serving web scans'}</Fact>
          <Fact label="Schedule">
            <ScheduleText schedule={scan.Schedule} next={scan.NextRunAt} />
          </Fact>
        </SimpleGrid>
      </Card>
      <LatestRunQuery query={latest}>{(report) => <RunReport report={report} />}</LatestRunQuery>
      <ScanFindings scanId={scan.Id} />
      <WebScanFormModal opened={editOpened} onClose={edit.close} scan={scan} />
    </Stack>
  );
}

function RunReport({ report }: { report: WebLatestRun }) {
  return (
    <Stack gap="md" component="section" aria-labelledby="latest-run-title">
      <RunHeading run={report.Run} />
      <ImportCounts report={report} />
      {report.Urls.length === 0 ? (
        <Paper withBorder p="lg" ta="center">
          <Text size="sm" c="dimmed">
            {isActive(report.Run.State) ? 'No URL finished yet.' : 'No URL was checked.'}
          </Text>
        </Paper>
      ) : (
        report.Urls.map((url) => <UrlCard key={url.Url} url={url} />)
      )}
    </Stack>
  );
}

const GRADE_COLORS: Record<string, string> = { A: 'green', B: 'lime', C: 'yellow', D: 'orange' };

function UrlCard({ url }: { url: WebUrl }) {
  return (
    <Card withBorder radius="md" data-testid="web-url" aria-label={url.Url} component="section">
      <Group gap="sm" mb="xs" wrap="wrap">
        <Text fw={600} ff="monospace" style={{ overflowWrap: 'anywhere' }}>
          {url.Url}
        </Text>
        {url.Status !== null && <Badge variant="light">HTTP {url.Status}</Badge>}
        {url.HeaderScore && (
          <Badge
            variant="light"
            color={GRADE_COLORS[url.HeaderScore.Grade.charAt(0)] ?? 'red'}
            title="Security headers, scored as Mozilla's HTTP Observatory scores them"
          >
            Headers {url.HeaderScore.Grade} ({url.HeaderScore.Score})
          </Badge>
        )}
        {url.Address && (
          <Text size="sm" c="dimmed" ff="monospace">
            {url.Address}
          </Text>
        )}
      </Group>
      {url.FinalUrl && url.FinalUrl !== url.Url && (
        <Text size="sm" c="dimmed">
          Redirected to {url.FinalUrl}
        </Text>
      )}
      {url.Error && (
        <Text size="sm" c="red">
          Not scanned: {url.Error}
        </Text>
      )}
      {url.BudgetExhausted && (
        <Text size="sm" c="orange">
          {url.BudgetExhausted === 'url' ? 'The URL’s' : 'The run’s'} time budget ran out: checks not done
          were not judged.
        </Text>
      )}
      {url.Checks.length > 0 && (
        <Stack gap={2} mt="xs">
          <Text size="sm" fw={600}>
            Checks that found something
          </Text>
          <List size="sm" spacing={2}>
            {url.Checks.map((c) => (
              <List.Item key={c.CheckId}>{c.Title ?? c.CheckId}</List.Item>
            ))}
          </List>
        </Stack>
      )}
      {url.Notes.length > 0 && (
        <Stack gap={2} mt="xs">
          <Text size="sm" fw={600}>
            Notes
          </Text>
          <List size="sm" spacing={2}>
            {url.Notes.map((note) => (
              <List.Item key={note}>{note}</List.Item>
            ))}
          </List>
        </Stack>
      )}
      {url.Software.length > 0 && (
        <Table fz="sm" verticalSpacing={4} mt="xs" aria-label={`Software named by ${url.Url}`}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Header</Table.Th>
              <Table.Th>Value</Table.Th>
              <Table.Th>Product</Table.Th>
              <Table.Th>Version</Table.Th>
              <Table.Th>CPE</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {url.Software.map((s) => (
              <Table.Tr key={`${s.Header}:${s.Value}`}>
                <Table.Td>{s.Header}</Table.Td>
                <Table.Td style={{ overflowWrap: 'anywhere' }}>{s.Value}</Table.Td>
                <Table.Td>{s.Product ?? '—'}</Table.Td>
                <Table.Td>{s.Version ?? '—'}</Table.Td>
                <Table.Td
                  style={{ fontFamily: 'var(--mantine-font-family-monospace)', overflowWrap: 'anywhere' }}
                >
                  {s.Cpes.length ? s.Cpes.join(' ') : '—'}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Card>
  );
}
