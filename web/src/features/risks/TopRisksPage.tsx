import {
  Anchor,
  Button,
  Checkbox,
  Collapse,
  Group,
  Paper,
  Slider,
  Stack,
  Table,
  Text,
  Title,
  Tooltip,
} from '@mantine/core';
import { useDisclosure, useDocumentTitle, useMediaQuery } from '@mantine/hooks';
import { useEffect, useId, useMemo, useState } from 'react';
import { Link } from 'react-router';
import { OPEN_STATES, useFindings } from '../../api/findings';
import type { Finding, FindingFilter } from '../../api/types';
import { vulnerabilityPath } from '../../api/vulnerabilities';
import { DueDate } from '../../components/Badges';
import { EmptyState } from '../../components/EmptyState';
import { LoadMore } from '../../components/LoadMore';
import { TableSkeleton } from '../../components/PageSkeleton';
import { QueryError } from '../../components/QueryError';
import { formatPercentile, formatTopShare, KevBadge, RiskRing } from '../../components/Risk';
import { riskMinParam } from '../../components/RiskMinInput';
import { TableHead } from '../../components/TableHead';
import { useUrlState } from '../../components/useUrlState';
import { IconChevronDown } from '../../icons';
import { plural } from '../../labels';
import { locationText } from '../findings/location';

const PAGE_SIZE = 50;
const MARKS = [0, 25, 50, 75, 100].map((value) => ({ value, label: String(value) }));

export default function TopRisksPage() {
  useDocumentTitle('Top risks · Rampart');
  const [params, update] = useUrlState();
  const kev = params.get('Kev') === 'true';
  const riskMin = riskMinParam(params.get('RiskMin'));

  const filter = useMemo<FindingFilter>(
    () => ({ State: [...OPEN_STATES], Kev: kev || undefined, RiskMin: riskMin }),
    [kev, riskMin],
  );

  return (
    <Stack gap="lg">
      <div>
        <Title order={1}>Top risks</Title>
        <Text size="sm" c="dimmed">
          Your open findings, riskiest first: what is exploited, likely to be, and on the assets that matter
          most. Fix from the top.
        </Text>
      </div>

      <Paper withBorder p="sm" radius="md" component="section" aria-label="Filters">
        <Group gap="xl" align="flex-end" wrap="wrap">
          <Checkbox
            label="Known exploited (KEV) only"
            checked={kev}
            onChange={(e) => update({ Kev: e.currentTarget.checked ? 'true' : undefined })}
            mb={6}
          />
          <RiskSlider
            value={riskMin ?? 0}
            onCommit={(value) => update({ RiskMin: value > 0 ? String(value) : undefined })}
          />
        </Group>
        <ScoreExplanation />
      </Paper>

      <TopRisksList filter={filter} />
    </Stack>
  );
}

/**
 * "Risk at least N": dragged, or stepped with the arrow keys. Applied a moment after it is let go,
 * so that stepping from 0 to 60 with the keyboard is one change of the address, not twelve.
 */
function RiskSlider({ value, onCommit }: { value: number; onCommit: (value: number) => void }) {
  // Shown while it moves; let go of but not applied yet.
  const [moving, setMoving] = useState<number | null>(null);
  const [settled, setSettled] = useState<number | null>(null);
  // The address changed (applied, the back button, a link): it is what to show again.
  const [applied, setApplied] = useState(value);
  if (applied !== value) {
    setApplied(value);
    setMoving(null);
    setSettled(null);
  }

  // biome-ignore lint/correctness/useExhaustiveDependencies: only letting go schedules a commit
  useEffect(() => {
    if (settled === null) return;
    const timer = setTimeout(() => onCommit(settled), 300);
    return () => clearTimeout(timer);
  }, [settled]);

  const shown = moving ?? value;
  return (
    <div style={{ flex: '1 1 240px', maxWidth: 420, minWidth: 200 }}>
      <Text size="sm" fw={500} mb={4} aria-hidden>
        Risk at least{' '}
        <Text component="span" fw={700} inherit style={{ fontVariantNumeric: 'tabular-nums' }}>
          {shown > 0 ? shown : 'any'}
        </Text>
      </Text>
      <Slider
        min={0}
        max={100}
        step={5}
        marks={MARKS}
        value={shown}
        onChange={setMoving}
        onChangeEnd={(next) => {
          setMoving(next);
          setSettled(next === value ? null : next);
        }}
        thumbLabel="Risk at least"
        label={(v) => (v > 0 ? `≥ ${v}` : 'Any')}
        mb="lg"
        mx={6}
      />
    </div>
  );
}

function ScoreExplanation() {
  const [opened, { toggle }] = useDisclosure(false);
  const id = useId();
  return (
    <Stack gap={4} mt="xs" align="flex-start">
      <Button
        variant="subtle"
        size="compact-sm"
        rightSection={
          <IconChevronDown
            size={14}
            style={{ transform: opened ? 'rotate(180deg)' : undefined, transition: 'transform 150ms' }}
            aria-hidden
          />
        }
        onClick={toggle}
        aria-expanded={opened}
        aria-controls={id}
      >
        How the risk score is made
      </Button>
      <Collapse in={opened} id={id}>
        <Text size="sm" maw={760} px={6}>
          Each finding scores 0 to 100: <b>impact</b> (the CVSS base score ÷ 10; without one, or when a person
          set the severity, the severity’s typical value) × <b>likelihood</b> (1 when CISA KEV lists the CVE,
          else 0.5 + 0.5 × its EPSS percentile, else 0.75) × <b>context</b> (the asset’s criticality 1–5
          counts 0.6 to 1.3, and facing the internet × 1.2), capped at 100. The “Risk score” section of
          Rampart’s documentation (docs/intelligence.md) gives the formula with worked examples.
        </Text>
      </Collapse>
    </Stack>
  );
}

function TopRisksList({ filter }: { filter: FindingFilter }) {
  const findings = useFindings(filter, '-Risk', PAGE_SIZE);
  // Below the `sm` breakpoint the table would need sideways scrolling: a ranked list of cards instead.
  const narrow = useMediaQuery('(max-width: 47.99em)');

  if (findings.isPending) return <TableSkeleton rows={6} />;
  if (findings.isError && !findings.data) {
    return <QueryError error={findings.error} onRetry={() => findings.refetch()} />;
  }
  const rows = findings.data.pages.flatMap((page) => page.Items);
  const total = findings.data.pages[0]?.TotalCount;

  return (
    <Stack gap="sm" component="section" aria-label="Top risks">
      <Text size="sm" fw={600} aria-live="polite" data-testid="findings-total">
        {plural(total ?? rows.length, 'open finding')}
        {findings.isPlaceholderData && (
          <Text component="span" size="sm" c="dimmed" fw={400} ml={6}>
            (updating…)
          </Text>
        )}
      </Text>
      {rows.length === 0 ? (
        <EmptyState title="Nothing to show">
          {filter.Kev || filter.RiskMin
            ? 'No open finding matches these filters. Lower the minimum risk or show every finding.'
            : 'There is no open finding. Import a scanner report to see your risks here.'}
        </EmptyState>
      ) : narrow ? (
        <Stack gap="xs">
          {rows.map((finding) => (
            <RiskCard key={finding.Id} finding={finding} />
          ))}
        </Stack>
      ) : (
        <Table.ScrollContainer minWidth={900}>
          <Table striped highlightOnHover verticalSpacing={6} horizontalSpacing="sm" fz="sm">
            <TableHead
              columns={[
                { label: 'Risk', w: 64 },
                'Finding',
                { label: 'KEV', w: 80 },
                { label: 'EPSS', w: 110 },
                { label: 'CVSS', w: 64, ta: 'right' },
                'Asset and location',
                { label: 'Due', w: 190 },
              ]}
            />
            <Table.Tbody>
              {rows.map((finding) => (
                <RiskRow key={finding.Id} finding={finding} />
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <LoadMore query={findings} shown={rows.length} total={total} what="findings" />
    </Stack>
  );
}

function FindingTitle({ finding }: { finding: Finding }) {
  return (
    <div style={{ minWidth: 0 }}>
      <Anchor component={Link} to={`/findings/${finding.Id}`} size="sm" fw={500}>
        {finding.Title}
      </Anchor>
      {finding.CVEReferences.length > 0 && (
        <Text size="xs" c="dimmed">
          <Anchor component={Link} to={vulnerabilityPath(finding.VulnerabilityId)} inherit c="dimmed">
            {finding.CVEReferences[0]}
          </Anchor>
          {finding.CVEReferences.length > 1 && ` and ${finding.CVEReferences.length - 1} more`}
        </Text>
      )}
    </div>
  );
}

function Epss({ finding, size = 'sm' }: { finding: Finding; size?: 'sm' | 'xs' }) {
  if (finding.EpssPercentile === null) {
    return (
      <Text component="span" size={size} c="dimmed">
        —
      </Text>
    );
  }
  return (
    <Tooltip label={`EPSS percentile ${formatPercentile(finding.EpssPercentile)}`}>
      <Text component="span" size={size} style={{ whiteSpace: 'nowrap' }}>
        {formatTopShare(finding.EpssPercentile)}
      </Text>
    </Tooltip>
  );
}

function RiskRow({ finding }: { finding: Finding }) {
  return (
    <Table.Tr>
      <Table.Td>
        <RiskRing score={finding.RiskScore} size={40} />
      </Table.Td>
      <Table.Td style={{ overflowWrap: 'anywhere' }}>
        <FindingTitle finding={finding} />
      </Table.Td>
      <Table.Td>{finding.Kev ? <KevBadge dueDate={finding.KevDueDate} compact /> : null}</Table.Td>
      <Table.Td>
        <Epss finding={finding} />
      </Table.Td>
      <Table.Td ta="right" style={{ fontVariantNumeric: 'tabular-nums' }}>
        {finding.CVSSBaseScore?.toFixed(1) ?? '—'}
      </Table.Td>
      <Table.Td style={{ overflowWrap: 'break-word' }}>
        <Anchor component={Link} to={`/assets/${finding.AssetId}`} size="sm">
          {finding.AssetName}
        </Anchor>
        {finding.Location.Kind !== 'None' && (
          <Text size="xs" c="dimmed">
            {locationText(finding.Location)}
          </Text>
        )}
      </Table.Td>
      <Table.Td style={{ whiteSpace: 'nowrap' }}>
        <DueDate value={finding.DueAt} />
      </Table.Td>
    </Table.Tr>
  );
}

/** One finding on a phone: the ring beside its title, the figures underneath. */
function RiskCard({ finding }: { finding: Finding }) {
  return (
    <Paper withBorder radius="md" p="sm" component="article" aria-label={finding.Title}>
      <Group gap="sm" wrap="nowrap" align="flex-start">
        <RiskRing score={finding.RiskScore} size={44} />
        <Stack gap={6} style={{ minWidth: 0, flex: 1, overflowWrap: 'anywhere' }}>
          <FindingTitle finding={finding} />
          <Group gap="xs" wrap="wrap">
            {finding.Kev && <KevBadge dueDate={finding.KevDueDate} compact />}
            <Text size="xs" c="dimmed">
              EPSS <Epss finding={finding} size="xs" />
            </Text>
            <Text size="xs" c="dimmed">
              CVSS {finding.CVSSBaseScore?.toFixed(1) ?? '—'}
            </Text>
          </Group>
          <Group gap="xs" justify="space-between" wrap="wrap">
            <Anchor component={Link} to={`/assets/${finding.AssetId}`} size="sm">
              {finding.AssetName}
            </Anchor>
            <Text size="sm">
              <Text component="span" size="xs" c="dimmed">
                Due{' '}
              </Text>
              <DueDate value={finding.DueAt} />
            </Text>
          </Group>
        </Stack>
      </Group>
    </Paper>
  );
}
