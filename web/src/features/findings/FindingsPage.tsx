import {
  Anchor,
  Button,
  Checkbox,
  Group,
  MultiSelect,
  Paper,
  Select,
  SimpleGrid,
  Stack,
  Text,
} from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { useMemo, useState } from 'react';
import { Link } from 'react-router';
import { errorMessage } from '../../api/client';
import { saveBlob } from '../../api/download';
import { downloadFindingsCsv, FINDING_STATES, OPEN_STATES, SEVERITIES } from '../../api/findings';
import { IMPORT_CHANGES } from '../../api/imports';
import type { FindingFilter, FindingSort } from '../../api/types';
import { vulnerabilityPath } from '../../api/vulnerabilities';
import { FilterTextInput } from '../../components/FilterTextInput';
import { PageHeader } from '../../components/PageHeader';
import { RiskMinInput, riskMinParam } from '../../components/RiskMinInput';
import { listParam, useUrlState } from '../../components/useUrlState';
import { IconDownload, IconSearch } from '../../icons';
import { FINDING_STATE_LABELS, options } from '../../labels';
import { ImportFilterBadge } from '../imports/ImportFilterBadge';
import { FindingsTable } from './FindingsTable';

const SORTS: { value: FindingSort; label: string }[] = [
  { value: '-Risk', label: 'Risk' },
  { value: '-Severity', label: 'Severity' },
  { value: '-FirstSeen', label: 'First seen' },
  { value: '-LastSeen', label: 'Last seen' },
  { value: 'DueAt', label: 'Due date' },
];
const DEFAULT_SORT: FindingSort = '-Risk';

/** The time filters the dashboard's links set (ISO times), as the API names them. */
const TIME_FILTERS = ['FirstSeenAfter', 'FirstSeenBefore', 'FixedAfter', 'FixedBefore', 'DueBefore'] as const;
type TimeFilter = (typeof TIME_FILTERS)[number];
const NO_TIMES = Object.fromEntries(TIME_FILTERS.map((k) => [k, undefined])) as Record<TimeFilter, undefined>;

/** The valid time filters of the address. */
function timeParams(params: URLSearchParams): Partial<Record<TimeFilter, string>> {
  const times: Partial<Record<TimeFilter, string>> = {};
  for (const key of TIME_FILTERS) {
    const value = params.get(key);
    if (value && !Number.isNaN(Date.parse(value))) times[key] = new Date(value).toISOString();
  }
  return times;
}

const TIME_WORDS: Record<TimeFilter, string> = {
  FirstSeenAfter: 'first seen after',
  FirstSeenBefore: 'first seen before',
  FixedAfter: 'fixed after',
  FixedBefore: 'fixed before',
  DueBefore: 'due before',
};

/** "Only findings first seen after 1 Oct 2026, 12:00 and first seen before …". */
function timesSentence(times: Partial<Record<TimeFilter, string>>): string {
  const format = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  const parts = TIME_FILTERS.filter((k) => times[k]).map(
    (k) => `${TIME_WORDS[k]} ${format.format(new Date(times[k] as string))}`,
  );
  return `Only findings ${parts.join(' and ')}.`;
}
const CVE_PATTERN = /^CVE-\d{4}-\d{4,}$/i;

export default function FindingsPage() {
  useDocumentTitle('Findings · Rampart');
  const [params, update] = useUrlState();

  // Set by links from an import's result: what it created, fixed or reopened, in any state since.
  const importId = params.get('ImportId') ?? '';
  const importChange = IMPORT_CHANGES.find((c) => c === params.get('ImportChange'));
  const state = listParam(params, 'State', FINDING_STATES, importId ? [] : OPEN_STATES);
  const severity = listParam(params, 'Severity', SEVERITIES);
  const search = params.get('Search') ?? '';
  const tag = params.get('Tag') ?? '';
  const cve = params.get('Cve') ?? '';
  const kev = params.get('Kev') === 'true';
  // Unconfirmed findings (upstream CVEs on a distribution build Rampart has no data for) are hidden
  // by default, as the server does; one click shows them with the others.
  const withUnconfirmed = params.get('Confidence') === 'Any';
  const riskMin = riskMinParam(params.get('RiskMin'));
  // Set by links from an asset's or a vulnerability's page; shown as a line that removes it.
  const assetId = params.get('AssetId') ?? '';
  const vulnerabilityId = params.get('VulnerabilityId') ?? '';
  // Set by the dashboard's links: a scan group's findings, and the times behind a figure.
  const scanGroupId = params.get('ScanGroupId') ?? '';
  const times = timeParams(params);
  const sortParam = params.get('Sort');
  const sort = SORTS.some((s) => s.value === sortParam) ? (sortParam as FindingSort) : DEFAULT_SORT;

  // One object per distinct filter, so the table's query key and selection follow real changes only.
  const filterKey = JSON.stringify([
    state,
    severity,
    search,
    tag,
    cve,
    kev,
    withUnconfirmed,
    riskMin,
    assetId,
    vulnerabilityId,
    importId,
    importChange,
    scanGroupId,
    times,
  ]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: filterKey stands for its parts
  const filter = useMemo<FindingFilter>(
    () => ({
      State: state,
      Severity: severity,
      Search: search || undefined,
      Tag: tag || undefined,
      Cve: cve || undefined,
      Kev: kev || undefined,
      Confidence: withUnconfirmed ? 'Any' : undefined,
      RiskMin: riskMin,
      AssetId: assetId || undefined,
      VulnerabilityId: vulnerabilityId || undefined,
      ImportId: importId || undefined,
      ImportChange: importChange,
      ScanGroupId: scanGroupId || undefined,
      ...times,
    }),
    [filterKey],
  );

  const isDefault =
    !params.has('State') &&
    !severity.length &&
    !search &&
    !tag &&
    !cve &&
    !kev &&
    !withUnconfirmed &&
    riskMin === undefined &&
    !assetId &&
    !vulnerabilityId &&
    !importId &&
    !scanGroupId &&
    Object.keys(times).length === 0;

  const [exporting, setExporting] = useState(false);
  const exportCsv = async () => {
    setExporting(true);
    try {
      saveBlob(await downloadFindingsCsv(filter, sort), 'findings.csv');
    } catch (error) {
      notifications.show({ color: 'red', title: 'Export failed', message: errorMessage(error) });
    } finally {
      setExporting(false);
    }
  };

  return (
    <Stack gap="md">
      <PageHeader
        title="Findings"
        action={
          <Button
            variant="default"
            leftSection={<IconDownload size={16} />}
            onClick={exportCsv}
            loading={exporting}
          >
            Export CSV
          </Button>
        }
      >
        Vulnerabilities found on your assets, riskiest first. Filter, then act on several at once.
      </PageHeader>

      <Paper withBorder p="sm" radius="md" component="section" aria-label="Filters">
        <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }} spacing="sm" verticalSpacing="xs">
          <FilterTextInput
            label="Search"
            placeholder="Title or asset name"
            leftSection={<IconSearch size={16} />}
            maxLength={200}
            value={search}
            onCommit={(value) => update({ Search: value })}
          />
          <MultiSelect
            label="State"
            data={options(FINDING_STATES, FINDING_STATE_LABELS)}
            value={state}
            placeholder={state.length ? undefined : 'Any state'}
            onChange={(value) => {
              const same = value.length === OPEN_STATES.length && OPEN_STATES.every((s) => value.includes(s));
              update({ State: same && !importId ? undefined : value });
            }}
            clearable
          />
          <MultiSelect
            label="Severity"
            data={[...SEVERITIES]}
            value={severity}
            placeholder={severity.length ? undefined : 'Any severity'}
            onChange={(value) => update({ Severity: value.length ? value : undefined })}
            clearable
          />
          <Select
            label="Sort"
            data={SORTS}
            value={sort}
            onChange={(value) => update({ Sort: value && value !== DEFAULT_SORT ? value : undefined })}
            allowDeselect={false}
          />
          <FilterTextInput
            label="Tag"
            placeholder="Asset tag"
            maxLength={64}
            value={tag}
            onCommit={(value) => update({ Tag: value })}
          />
          <FilterTextInput
            label="CVE"
            placeholder="CVE-2024-12345"
            maxLength={30}
            value={cve}
            onCommit={(value) => update({ Cve: value.toUpperCase() })}
            validate={(value) => (CVE_PATTERN.test(value) ? undefined : 'Enter a CVE id like CVE-2024-12345')}
          />
          <RiskMinInput
            label="Risk at least"
            placeholder="Any risk"
            value={riskMin}
            onCommit={(value) => update({ RiskMin: value === undefined ? undefined : String(value) })}
          />
          <Group align="flex-end" pb={8}>
            <Checkbox
              label="Known exploited only"
              checked={kev}
              onChange={(e) => update({ Kev: e.currentTarget.checked ? 'true' : undefined })}
            />
            <Checkbox
              label="Show unconfirmed"
              description="Upstream CVEs on distribution builds Rampart has no advisory data for"
              checked={withUnconfirmed}
              onChange={(e) => update({ Confidence: e.currentTarget.checked ? 'Any' : undefined })}
            />
          </Group>
        </SimpleGrid>
        <Group justify="flex-end" mt={6}>
          <Button
            variant="subtle"
            color="gray"
            size="compact-sm"
            disabled={isDefault}
            onClick={() =>
              update({
                State: undefined,
                Severity: undefined,
                Search: undefined,
                Tag: undefined,
                Cve: undefined,
                Kev: undefined,
                Confidence: undefined,
                RiskMin: undefined,
                AssetId: undefined,
                VulnerabilityId: undefined,
                ImportId: undefined,
                ImportChange: undefined,
                ScanGroupId: undefined,
                ...NO_TIMES,
              })
            }
          >
            Reset filters
          </Button>
        </Group>
      </Paper>

      {assetId && (
        <Group gap="xs">
          <Text size="sm">Only the findings of one asset.</Text>
          <Anchor component={Link} to={`/assets/${encodeURIComponent(assetId)}`} size="sm">
            Open the asset
          </Anchor>
          <Button size="compact-sm" variant="light" onClick={() => update({ AssetId: undefined })}>
            Show all assets
          </Button>
        </Group>
      )}

      {vulnerabilityId && (
        <Group gap="xs">
          <Text size="sm">Only the findings of one vulnerability.</Text>
          <Anchor component={Link} to={vulnerabilityPath(vulnerabilityId)} size="sm">
            Open the vulnerability
          </Anchor>
          <Button size="compact-sm" variant="light" onClick={() => update({ VulnerabilityId: undefined })}>
            Show all vulnerabilities
          </Button>
        </Group>
      )}

      {scanGroupId && (
        <Group gap="xs">
          <Text size="sm">Only the findings of one scan group’s system and web scans.</Text>
          <Anchor component={Link} to={`/scan-groups/${encodeURIComponent(scanGroupId)}`} size="sm">
            Open the scan group
          </Anchor>
          <Button size="compact-sm" variant="light" onClick={() => update({ ScanGroupId: undefined })}>
            Show every scan group
          </Button>
        </Group>
      )}

      {Object.keys(times).length > 0 && (
        <Group gap="xs">
          <Text size="sm">{timesSentence(times)}</Text>
          <Button size="compact-sm" variant="light" onClick={() => update(NO_TIMES)}>
            Any time
          </Button>
        </Group>
      )}

      {importId && (
        <ImportFilterBadge
          importId={importId}
          change={importChange}
          onRemove={() => update({ ImportId: undefined, ImportChange: undefined })}
        />
      )}

      <FindingsTable filter={filter} sort={sort} />
    </Stack>
  );
}
