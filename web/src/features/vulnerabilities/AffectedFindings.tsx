import { Anchor, Card, Group, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useMemo } from 'react';
import { Link } from 'react-router';
import { OPEN_STATES, useFindings } from '../../api/findings';
import type { Finding, FindingFilter } from '../../api/types';
import { DueDate, FindingStateBadge } from '../../components/Badges';
import { LoadMore } from '../../components/LoadMore';
import { TableSkeleton } from '../../components/PageSkeleton';
import { QueryError } from '../../components/QueryError';
import { RiskRing } from '../../components/Risk';
import { TableHead } from '../../components/TableHead';
import { describeLocation, locationText } from '../findings/location';

/** Every finding of the vulnerability in the organisation, in any state, riskiest first. */
export function AffectedFindings({ vulnerabilityId }: { vulnerabilityId: string }) {
  const filter = useMemo<FindingFilter>(() => ({ VulnerabilityId: vulnerabilityId }), [vulnerabilityId]);
  const findings = useFindings(filter, '-Risk');
  const rows = findings.data?.pages.flatMap((page) => page.Items) ?? [];
  const total = findings.data?.pages[0]?.TotalCount;
  const listPath = `/findings?${new URLSearchParams({ VulnerabilityId: vulnerabilityId, State: '' })}`;
  // Below the `sm` breakpoint the table would need sideways scrolling: one small card per finding.
  const narrow = useMediaQuery('(max-width: 47.99em)');

  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="affected-title">
      <Group justify="space-between" gap="xs" mb="sm">
        <Title order={2} size="h4" id="affected-title">
          Affected assets and findings
          {total !== undefined && (
            <Text component="span" c="dimmed" fw={400} inherit>
              {' '}
              ({total})
            </Text>
          )}
        </Title>
        {rows.length > 0 && (
          <Anchor component={Link} to={listPath} size="sm">
            Open in the findings list
          </Anchor>
        )}
      </Group>
      {findings.isPending ? (
        <TableSkeleton rows={3} />
      ) : findings.isError && !findings.data ? (
        <QueryError error={findings.error} onRetry={() => findings.refetch()} />
      ) : rows.length === 0 ? (
        <Text size="sm" c="dimmed">
          No asset of your organisation has a finding of this vulnerability.
        </Text>
      ) : narrow ? (
        <Stack gap="xs">
          {rows.map((finding) => (
            <AffectedCard key={finding.Id} finding={finding} />
          ))}
          <LoadMore query={findings} shown={rows.length} total={total} what="findings" />
        </Stack>
      ) : (
        <Stack gap="sm">
          <Table.ScrollContainer minWidth={640}>
            <Table striped highlightOnHover verticalSpacing={6} horizontalSpacing="sm" fz="sm">
              <TableHead
                columns={[
                  { label: 'Risk', w: 64 },
                  'Asset',
                  'Location',
                  { label: 'State', w: 120 },
                  { label: 'Due', w: 190 },
                  { label: 'Finding', w: 90 },
                ]}
              />
              <Table.Tbody>
                {rows.map((finding) => (
                  <AffectedRow key={finding.Id} finding={finding} />
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          <LoadMore query={findings} shown={rows.length} total={total} what="findings" />
        </Stack>
      )}
    </Card>
  );
}

/** The link to a finding, named for what it is about: its asset and where on it. */
function FindingLink({ finding }: { finding: Finding }) {
  return (
    <Anchor
      component={Link}
      to={`/findings/${finding.Id}`}
      size="sm"
      aria-label={`Open the finding on ${finding.AssetName}, ${locationText(finding.Location)}`}
    >
      Open
    </Anchor>
  );
}

function AffectedCard({ finding }: { finding: Finding }) {
  const open = OPEN_STATES.includes(finding.State);
  return (
    <Paper withBorder radius="md" p="xs">
      <Group gap="sm" wrap="nowrap" align="center">
        <RiskRing score={finding.RiskScore} size={40} />
        <Stack gap={4} style={{ minWidth: 0, flex: 1, overflowWrap: 'break-word' }}>
          <Group gap="xs" justify="space-between" wrap="nowrap">
            <Anchor component={Link} to={`/assets/${finding.AssetId}`} size="sm" fw={500}>
              {finding.AssetName}
            </Anchor>
            <FindingLink finding={finding} />
          </Group>
          <Group gap="xs" wrap="wrap">
            {describeLocation(finding.Location)}
            <FindingStateBadge state={finding.State} />
            <Text size="xs">
              <Text component="span" size="xs" c="dimmed">
                Due{' '}
              </Text>
              <DueDate value={finding.DueAt} done={!open} />
            </Text>
          </Group>
        </Stack>
      </Group>
    </Paper>
  );
}

function AffectedRow({ finding }: { finding: Finding }) {
  const open = OPEN_STATES.includes(finding.State);
  return (
    <Table.Tr>
      <Table.Td>
        <RiskRing score={finding.RiskScore} size={40} />
      </Table.Td>
      <Table.Td style={{ overflowWrap: 'break-word' }}>
        <Anchor component={Link} to={`/assets/${finding.AssetId}`} size="sm">
          {finding.AssetName}
        </Anchor>
      </Table.Td>
      <Table.Td style={{ overflowWrap: 'anywhere' }}>{describeLocation(finding.Location)}</Table.Td>
      <Table.Td>
        <FindingStateBadge state={finding.State} />
      </Table.Td>
      <Table.Td style={{ whiteSpace: 'nowrap' }}>
        <DueDate value={finding.DueAt} done={!open} />
      </Table.Td>
      <Table.Td>
        <FindingLink finding={finding} />
      </Table.Td>
    </Table.Tr>
  );
}
