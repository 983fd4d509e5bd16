import { Alert, Badge, Card, Code, Group, Stack, Table, Text, Title } from '@mantine/core';
import type { CvssAssessment } from '../../api/intel';
import type { Severity } from '../../api/types';
import { SEVERITY_COLORS } from '../../components/Badges';
import { TableHead } from '../../components/TableHead';
import { IconAlertTriangle } from '../../icons';
import { metricName } from './cvss';

/** One CVSS assessment: its base score and severity, the vector, and every base metric in words. */
export function CvssCard({ assessment, index }: { assessment: CvssAssessment; index: number }) {
  const titleId = `cvss-${index}-title`;
  const { Version, Vector, BaseScore, Severity: severity, Source, Type, Metrics, Error: error } = assessment;
  const by = [Source, Type].filter(Boolean).join(' · ');
  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby={titleId}>
      <Group justify="space-between" align="flex-start" wrap="nowrap" gap="sm" mb="sm">
        <div style={{ minWidth: 0 }}>
          <Title order={3} size="h5" id={titleId}>
            CVSS v{Version}
          </Title>
          <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
            {by || 'As the scanner reported it'}
          </Text>
        </div>
        {BaseScore !== null && (
          <Group gap={8} wrap="nowrap" align="center">
            <Text
              fz={28}
              fw={700}
              lh={1}
              style={{ fontVariantNumeric: 'tabular-nums' }}
              aria-label={`Base score ${BaseScore.toFixed(1)}`}
            >
              {BaseScore.toFixed(1)}
            </Text>
            {severity && (
              <Badge
                color={SEVERITY_COLORS[severity as Severity] ?? 'gray'}
                variant={severity === 'Critical' || severity === 'High' ? 'filled' : 'light'}
                styles={{ root: { flexShrink: 0, overflow: 'visible' }, label: { overflow: 'visible' } }}
              >
                {severity}
              </Badge>
            )}
          </Group>
        )}
      </Group>
      <Stack gap="sm">
        {Vector ? (
          <Code block fz="xs" style={{ wordBreak: 'break-all', whiteSpace: 'pre-wrap' }}>
            {Vector}
          </Code>
        ) : (
          <Text size="sm" c="dimmed">
            The scanner gave a score without its vector, so there is no breakdown.
          </Text>
        )}
        {error && (
          <Alert color="yellow" variant="light" icon={<IconAlertTriangle />} title="Vector not readable">
            <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
              {error}
            </Text>
          </Alert>
        )}
        {Metrics.length > 0 && (
          <Table
            fz="sm"
            verticalSpacing={4}
            horizontalSpacing="xs"
            striped
            aria-label={`Base metrics of CVSS v${Version}${Source ? ` by ${Source}` : ''}`}
          >
            <TableHead columns={['Metric', 'Value']} />
            <Table.Tbody>
              {Metrics.map((metric) => (
                <Table.Tr key={metric.Key}>
                  <Table.Td>
                    {metricName(Version, metric)}{' '}
                    <Text component="span" size="xs" c="dimmed" ff="monospace">
                      {metric.Key}
                    </Text>
                  </Table.Td>
                  <Table.Td fw={500}>
                    {metric.Label}{' '}
                    <Text component="span" size="xs" c="dimmed" ff="monospace" fw={400}>
                      {metric.Value}
                    </Text>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </Stack>
    </Card>
  );
}
