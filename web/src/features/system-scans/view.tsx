import { type SystemScan, type SystemScanBody, systemScans } from '../../api/systemscans';
import { latestRunBody } from '../scans/LatestRun';
import { rangesText, rangeTargetsForm } from '../scans/rangeTargets';
import { settingsColumns } from '../scans/ScanTable';
import { sealScanView } from '../scans/view';
import { SystemRunReport } from './SystemRunReport';

/** System scans: ports, the services behind them and their weaknesses, on hosts of allowed ranges. */
export const systemView = sealScanView<SystemScan, SystemScanBody, 'targets' | 'exclusions'>({
  kind: 'System',
  path: '/system-scans',
  hooks: systemScans,
  labels: {
    noun: 'system scan',
    intro:
      "Scan hosts for open ports, the services behind them and their weaknesses. Each run's findings land on the hosts' assets; what a run no longer sees is marked Fixed.",
    emptyText:
      'A system scan connects to the ports of allowed hosts, names their services and runs safe checks.',
  },
  columns: [{ header: 'Targets', code: true, cell: rangesText }, ...settingsColumns<SystemScan>()],
  factColumns: 2,
  facts: (scan) => ({ first: [{ label: 'Targets', value: rangesText(scan), code: true }] }),
  form: rangeTargetsForm({
    description:
      'One per line: an address, a range (10.0.0.1-10.0.0.40), a CIDR or a host name, optionally followed by a name.',
    missing: 'Enter at least one target, one per line.',
    templatePlaceholder: 'System scan, well-known ports [S1]',
  }),
  Body: latestRunBody(systemScans, SystemRunReport),
});
