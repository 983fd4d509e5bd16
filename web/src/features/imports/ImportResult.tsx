import { Alert, Button, Collapse, Group, List, Loader, Paper, SimpleGrid, Stack, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useId } from 'react';
import { Link } from 'react-router';
import { type Import, type ImportChange, importFindingsPath } from '../../api/imports';
import { IconAlertCircle, IconAlertTriangle, IconChevronDown } from '../../icons';
import { formatDuration } from './format';

/** What an import is doing, or what it did: live state, counts, warnings, error. */
export function ImportResult({ item }: { item: Import }) {
  return (
    <Stack gap="md">
      {item.State === 'Queued' && (
        <Waiting text="Queued: the report starts once the imports before it end." />
      )}
      {item.State === 'Running' && <Waiting text="Reading the report and merging its results…" />}
      {item.State === 'Completed' && item.Attention && (
        <Alert
          color="orange"
          variant="filled"
          title={
            item.Attention.Reason === 'NoFindings'
              ? 'No finding was stored from this report'
              : 'Most of this report was skipped'
          }
          icon={<IconAlertTriangle />}
          data-testid="import-attention"
        >
          <Stack gap={4}>
            <Text size="sm">{item.Attention.Detail}</Text>
            <Text size="sm">
              The warnings below say what was skipped and why. Fix the report or its format and import it
              again; what was stored stays.
            </Text>
          </Stack>
        </Alert>
      )}
      {item.State === 'Completed' && <ImportCounts item={item} />}
      {item.State === 'Failed' && (
        <Alert color="red" variant="light" title="The import failed" icon={<IconAlertCircle />}>
          <Stack gap={4}>
            <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
              {item.Error ?? 'The server gave no reason.'}
            </Text>
            <Text size="sm" c="dimmed">
              Nothing from this report was stored. Fix the file, or choose its format, and import it again.
            </Text>
          </Stack>
        </Alert>
      )}
      {item.Warnings.length > 0 && <Warnings warnings={item.Warnings} opened={!!item.Attention} />}
    </Stack>
  );
}

function Waiting({ text }: { text: string }) {
  return (
    <Group gap="sm" py="sm">
      <Loader size="sm" aria-hidden />
      <Text size="sm">{text}</Text>
    </Group>
  );
}

const CHANGES: {
  change: ImportChange | null;
  key: 'New' | 'Reopened' | 'Fixed' | 'Unchanged';
  note: string;
  color?: string;
}[] = [
  { change: 'New', key: 'New', note: 'findings first seen', color: 'red' },
  { change: 'Reopened', key: 'Reopened', note: 'fixed before, seen again', color: 'grape' },
  { change: 'Fixed', key: 'Fixed', note: 'no longer reported', color: 'green' },
  { change: null, key: 'Unchanged', note: 'seen again, state kept' },
];

function ImportCounts({ item }: { item: Import }) {
  const c = item.Counts;
  const details: [string, string][] = [
    ['Assets created', count(c.AssetsCreated)],
    ['Assets updated', count(c.AssetsUpdated)],
    ['Services', count(c.Services)],
    ['Software', count(c.Software)],
    ['Results read', count(c.Findings)],
    ['Duplicates merged', count(c.DuplicatesMerged)],
    ['Skipped', count(c.Skipped)],
    ['Duration', formatDuration(item.DurationMs)],
  ];
  return (
    <Stack gap="md">
      <SimpleGrid cols={{ base: 2, sm: 4 }} spacing="sm">
        {CHANGES.map(({ change, key, note, color }) => (
          <Figure
            key={key}
            label={key}
            value={c[key] ?? 0}
            note={note}
            color={color}
            to={change ? importFindingsPath(item.Id, change) : undefined}
          />
        ))}
      </SimpleGrid>
      <SimpleGrid component="dl" cols={{ base: 2, xs: 4 }} spacing="sm" verticalSpacing="xs" m={0}>
        {details.map(([label, value]) => (
          <div key={label}>
            <Text component="dt" size="xs" c="dimmed">
              {label}
            </Text>
            <Text component="dd" m={0} fw={600} style={{ fontVariantNumeric: 'tabular-nums' }}>
              {value}
            </Text>
          </div>
        ))}
      </SimpleGrid>
    </Stack>
  );
}

const count = (value: number | undefined) => (value ?? 0).toLocaleString();

interface FigureProps {
  label: string;
  value: number;
  note: string;
  color?: string;
  /** The findings behind the figure; a link only when there are some. */
  to?: string;
}

function Figure({ label, value, note, color, to }: FigureProps) {
  const linked = to !== undefined && value > 0;
  const body = (
    <Stack gap={2}>
      <Text size="sm" c="dimmed" fw={500}>
        {label}
      </Text>
      <Text
        fz={30}
        fw={700}
        lh={1.15}
        c={value > 0 ? color : undefined}
        style={{ fontVariantNumeric: 'tabular-nums' }}
      >
        {value.toLocaleString()}
      </Text>
      <Text
        size="xs"
        c={linked ? 'var(--mantine-color-anchor)' : 'dimmed'}
        td={linked ? 'underline' : undefined}
      >
        {linked ? 'Show these findings' : note}
      </Text>
    </Stack>
  );
  if (!linked)
    return (
      <Paper withBorder radius="md" p="sm" data-figure={label}>
        {body}
      </Paper>
    );
  return (
    <Paper
      withBorder
      radius="md"
      p="sm"
      component={Link}
      to={to}
      aria-label={`${label}: ${value.toLocaleString()} — show these findings`}
      data-figure={label}
      style={{ color: 'inherit', textDecoration: 'none' }}
    >
      {body}
    </Paper>
  );
}

/** A report's or a feed file's warnings, folded behind a button that says how many. */
export function Warnings({
  warnings,
  opened: openedAtFirst = false,
}: {
  warnings: string[];
  opened?: boolean;
}) {
  const [opened, { toggle }] = useDisclosure(openedAtFirst);
  const id = useId();
  return (
    <Stack gap={6} align="flex-start">
      <Button
        variant="subtle"
        color="orange"
        size="compact-sm"
        leftSection={<IconAlertTriangle size={16} />}
        rightSection={
          <IconChevronDown
            size={14}
            style={{ transform: opened ? 'rotate(180deg)' : undefined, transition: 'transform 150ms' }}
          />
        }
        onClick={toggle}
        aria-expanded={opened}
        aria-controls={id}
      >
        {warnings.length === 1 ? '1 warning' : `${warnings.length} warnings`}
      </Button>
      <Collapse in={opened} id={id} w="100%">
        <List size="sm" spacing={4} withPadding style={{ overflowWrap: 'anywhere' }}>
          {warnings.map((warning, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: warnings may repeat; their order is fixed
            <List.Item key={index}>{warning}</List.Item>
          ))}
        </List>
      </Collapse>
    </Stack>
  );
}
