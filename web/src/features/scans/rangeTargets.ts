import { parseTargetLines, splitLines } from '../../api/scans';
import type { CommonScanBody, ScanFormDescription } from './view';

/** A scan of address ranges (discovery and system scans): its targets, each maybe named, and exclusions. */
interface RangeScan {
  ScanTargets: { Range: string; Name?: string | null }[];
  Exclusions: string[];
}

type RangeBody = CommonScanBody & {
  ScanTargets: { Range: string; Name?: string }[];
  Exclusions: string[];
};

/** The scan's ranges, comma separated, as a list and the facts show them. */
export function rangesText(scan: RangeScan): string {
  return scan.ScanTargets.map((t) => t.Range).join(', ');
}

/** The form of a scan of address ranges: targets one per line (each maybe named), then exclusions. */
export function rangeTargetsForm(words: {
  description: string;
  missing: string;
  templatePlaceholder: string;
}): ScanFormDescription<RangeScan, RangeBody, 'targets' | 'exclusions'> {
  return {
    fields: [
      {
        key: 'targets',
        label: 'Targets',
        description: words.description,
        path: '/ScanTargets',
        missing: words.missing,
        parse: parseTargetLines,
        minRows: 3,
      },
      {
        key: 'exclusions',
        label: 'Exclusions',
        description: 'Addresses or ranges to leave out, one per line.',
        path: '/Exclusions',
        parse: splitLines,
        minRows: 1,
      },
    ],
    initial: (scan) => ({
      targets: (scan?.ScanTargets ?? []).map((t) => (t.Name ? `${t.Range} ${t.Name}` : t.Range)).join('\n'),
      exclusions: (scan?.Exclusions ?? []).join('\n'),
    }),
    body: (text, common) => ({
      ...common,
      ScanTargets: parseTargetLines(text.targets),
      Exclusions: splitLines(text.exclusions),
    }),
    checked: (text) => ({ targets: parseTargetLines(text.targets), exclusions: splitLines(text.exclusions) }),
    templatePlaceholder: words.templatePlaceholder,
  };
}
