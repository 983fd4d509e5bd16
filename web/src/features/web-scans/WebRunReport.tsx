import { Badge, Card, Group, List, Stack, Table, Text } from '@mantine/core';
import type { WebLatestRun, WebUrl } from '../../api/webscans';
import { TableHead } from '../../components/TableHead';
import { LatestRunReport } from '../scans/LatestRun';
import { SoftwareCells } from '../scans/SoftwareCells';

/** The latest web run: each URL with what it answered, its checks, notes and the software it named. */
export function WebRunReport({ report }: { report: WebLatestRun }) {
  return (
    <LatestRunReport
      report={report}
      items={report.Urls}
      renderItem={(url) => <UrlCard key={url.Url} url={url} />}
      none={{ active: 'No URL finished yet.', ended: 'No URL was checked.' }}
    />
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
          <TableHead columns={['Header', 'Value', 'Product', 'Version', 'CPE']} />
          <Table.Tbody>
            {url.Software.map((s) => (
              <Table.Tr key={`${s.Header}:${s.Value}`}>
                <Table.Td>{s.Header}</Table.Td>
                <Table.Td style={{ overflowWrap: 'anywhere' }}>{s.Value}</Table.Td>
                <SoftwareCells software={s} />
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Card>
  );
}
