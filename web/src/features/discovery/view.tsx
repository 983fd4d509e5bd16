import { type DiscoveryScan, type DiscoveryScanBody, discoveryScans } from '../../api/discovery';
import { DateTime } from '../../components/DateTime';
import { RunStateBadge } from '../scans/RunStateBadge';
import { rangesText, rangeTargetsForm } from '../scans/rangeTargets';
import { sealScanView } from '../scans/view';
import { DiscoveryProgress, DiscoveryRuns, RunProgress } from './DiscoveryRuns';

const lastCompleted = (scan: DiscoveryScan) =>
  scan.ScanLastCompleted ? <DateTime value={scan.ScanLastCompleted} /> : null;

/** Discovery scans: the live hosts of address ranges, each run marking them new, seen or gone. */
export const discoveryView = sealScanView<DiscoveryScan, DiscoveryScanBody, 'targets' | 'exclusions'>({
  kind: 'Discovery',
  path: '/discovery',
  hooks: discoveryScans,
  labels: {
    noun: 'discovery scan',
    intro:
      'Find the live hosts in your address ranges. Each run marks the hosts that are new or gone, and adds what it finds to Assets.',
    newButton: 'New scan',
    emptyText:
      'A discovery scan probes a range for live hosts with TCP connects, from the built-in scan node or one you enrol.',
    anyNode: 'Any node serving discovery',
    deleteText: (scan) => `Delete “${scan.Name}” and its reports? The assets it found stay.`,
  },
  columns: [
    { header: 'Targets', code: true, cell: rangesText },
    {
      header: 'State',
      cell: (scan) => (
        <>
          <RunStateBadge state={scan.RunState} title={scan.LastRun?.Error} />
          <RunProgress scan={scan} />
        </>
      ),
    },
    {
      header: 'Hosts',
      numeric: true,
      cell: (scan) => (scan.LastRun ? scan.LastRun.Progress.Found.toLocaleString() : '—'),
    },
    { header: 'Last completed', nowrap: true, cell: (scan) => lastCompleted(scan) ?? '—' },
  ],
  minTableWidth: 820,
  warnNothingAllowed: true,
  factColumns: 1,
  facts: (scan) => ({
    first: [
      {
        label: 'Targets',
        code: true,
        value: scan.ScanTargets.map((t) => (t.Name ? `${t.Range} (${t.Name})` : t.Range)).join(', '),
      },
      { label: 'Exclusions', value: scan.Exclusions.length ? scan.Exclusions.join(', ') : 'None' },
    ],
    last: [{ label: 'Last completed', value: lastCompleted(scan) ?? 'Never' }],
  }),
  form: rangeTargetsForm({
    description:
      'One per line: a CIDR (198.18.0.0/24), a range (10.0.0.1-10.0.0.40), an address or a host name, optionally followed by a name.',
    missing: 'Enter at least one range, one per line.',
    templatePlaceholder: 'Host Discovery [T1]',
  }),
  HeaderNote: DiscoveryProgress,
  Body: DiscoveryRuns,
});
