import { Alert, Group, Loader, Paper, SimpleGrid, Stack, Text } from '@mantine/core';
import type { IntelLoad } from '../../api/intel';
import { Day } from '../../components/Badges';
import { DateTime } from '../../components/DateTime';
import { IconAlertCircle } from '../../icons';
import { Warnings } from '../imports/ImportResult';

/**
 * The date a feed file speaks for. The server answers ISO 8601 UTC; older servers sent it as the
 * feeds write it: a day ("2026-08-16", EPSS), a KEV catalogue version ("2025.08.25"), or an NVD
 * timestamp, which is UTC without saying so.
 */
export function DataDate({ value }: { value: string | null }) {
  if (!value) return <>—</>;
  // The server answers ISO 8601 UTC; a date without a time of day is that day everywhere.
  if (/^\d{4}-\d{2}-\d{2}T00:00:00(\.000)?Z$/.test(value)) return <Day value={value.slice(0, 10)} />;
  const day = /^(\d{4})[.-](\d{2})[.-](\d{2})$/.exec(value);
  if (day) return <Day value={`${day[1]}-${day[2]}-${day[3]}`} />;
  const time = /^\d{4}-\d{2}-\d{2}T[\d:.]+$/.test(value) ? `${value}Z` : value;
  if (Number.isNaN(new Date(time).getTime())) return <>{value}</>;
  return <DateTime value={time} />;
}

const FIGURES: { key: 'Added' | 'Updated' | 'Unchanged' | 'Skipped'; note: string; color?: string }[] = [
  { key: 'Added', note: 'records new here', color: 'green' },
  { key: 'Updated', note: 'records that changed', color: 'blue' },
  { key: 'Unchanged', note: 'already stored as given' },
  { key: 'Skipped', note: 'records not readable', color: 'orange' },
];

/** What a load is doing, or what it did: live state, counts, data date, warnings, error. */
export function LoadResult({ load }: { load: IntelLoad }) {
  return (
    <Stack gap="md">
      {load.State === 'Running' && (
        <Group gap="sm" py="sm">
          <Loader size="sm" aria-hidden />
          <Text size="sm">Reading the file and applying what changed to every organisation…</Text>
        </Group>
      )}
      {load.State === 'Completed' && (
        <Stack gap="xs">
          <SimpleGrid cols={{ base: 2, sm: 4 }} spacing="sm">
            {FIGURES.map(({ key, note, color }) => (
              <Paper key={key} withBorder radius="md" p="sm" data-figure={key}>
                <Text size="sm" c="dimmed" fw={500}>
                  {key}
                </Text>
                <Text
                  fz={26}
                  fw={700}
                  lh={1.2}
                  c={load[key] > 0 ? color : undefined}
                  style={{ fontVariantNumeric: 'tabular-nums' }}
                >
                  {load[key].toLocaleString()}
                </Text>
                <Text size="xs" c="dimmed">
                  {note}
                </Text>
              </Paper>
            ))}
          </SimpleGrid>
          <Text size="sm" c="dimmed">
            Data of <DataDate value={load.DataDate} />; finished <DateTime value={load.FinishedAt} />.
          </Text>
        </Stack>
      )}
      {load.State === 'Failed' && (
        <Alert color="red" variant="light" title="The load failed" icon={<IconAlertCircle />}>
          <Stack gap={4}>
            <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
              {load.Error ?? 'The server gave no reason.'}
            </Text>
            <Text size="sm" c="dimmed">
              Complete records read before the error were kept ({load.Added.toLocaleString()} added,{' '}
              {load.Updated.toLocaleString()} updated). Fix the file, or choose its feed, and load it again.
            </Text>
          </Stack>
        </Alert>
      )}
      {load.Warnings.length > 0 && <Warnings warnings={load.Warnings} />}
    </Stack>
  );
}
