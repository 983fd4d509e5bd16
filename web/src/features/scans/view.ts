import type { ComponentType, ReactNode } from 'react';
import type { RunState, ScanHooks, ScanKind } from '../../api/scans';
import type { ScheduleOption } from './ScheduleFields';

/** What the list, the scan page and the form read of a scan of any kind. */
export interface ListedScan {
  Id: string;
  Name: string;
  RunState: RunState;
  TemplateId: string;
  ScanNodeId: string | null;
  NextRunAt: string | null;
  Schedule: ScheduleOption;
  LastRun: { Error: string | null } | null;
}

/** Select options (templates, scan nodes) as the cells and facts of a kind read them. */
export interface ScanOptions {
  templates: { value: string; label: string }[] | undefined;
  nodes: { value: string; label: string }[] | undefined;
}

/** One column of the scans list beyond the scan's name (always first, linking to the scan page). */
export interface ScanColumn<S> {
  header: string;
  cell: (scan: S, options: ScanOptions) => ReactNode;
  /** Numbers right-aligned in tabular figures. */
  numeric?: boolean;
  /** Targets and URLs: monospace, broken anywhere. */
  code?: boolean;
  /** Dates kept on one line. */
  nowrap?: boolean;
}

/** One term of the scan page's facts card. */
export interface ScanFact {
  label: string;
  value: ReactNode;
  code?: boolean;
}

/** A multi-line text field of the form: targets, exclusions or URLs. */
export interface ScanTextField<F extends string> {
  key: F;
  label: string;
  description: string;
  /** The body's JSON pointer the server names in its errors for this field. */
  path: string;
  /** The message when the field is left empty; a field without one may be empty. */
  missing?: string;
  /** The field's entries, as the body will hold them: none means the field is empty. */
  parse: (text: string) => unknown[];
  minRows: number;
}

/** What every kind's body has in common, as the form fills it in. */
export interface CommonScanBody {
  Name: string;
  TemplateId?: string;
  ScanNodeId: string | null;
  Schedule: ScheduleOption;
}

/** The kind's own fields of the scan form, how a scan fills them and how they become its body. */
export interface ScanFormDescription<S, B, F extends string> {
  fields: ScanTextField<F>[];
  initial: (scan: S | undefined) => Record<F, string>;
  body: (text: Record<F, string>, common: CommonScanBody) => B;
  /** The targets and exclusions the allowed-targets check reads as the fields are typed. */
  checked: (text: Record<F, string>) => { targets: { Range: string; Name?: string }[]; exclusions: string[] };
  templatePlaceholder: string;
}

/**
 * One scan kind as the web app shows it: where it lives, its words, its API hooks, its list
 * columns, its facts, its form, and the panels its scan page adds. The list page, the scan page
 * and the form modal read everything kind-specific from here.
 */
export interface ScanKindView<S extends ListedScan, B, F extends string = string> {
  kind: ScanKind;
  /** The list's path in the app (`/discovery`); a scan is at `${path}/${id}`. */
  path: string;
  hooks: ScanHooks<S, B, unknown>;
  labels: {
    /** "discovery scan": the list is "Discovery scans", its button "New discovery scan", … */
    noun: string;
    intro: string;
    /** Unless given, "New " and the noun. */
    newButton?: string;
    emptyText: string;
    /** The scan node fact and placeholder; unless given, "Any node serving " and the nouns. */
    anyNode?: string;
    /** What Delete asks; unless given, that the runs go and the findings and assets stay. */
    deleteText?: (scan: S) => string;
  };
  /** The list's columns after Name; RunButtons follow for those who may run scans. */
  columns: ScanColumn<S>[];
  /** The list's table's minimum width before it scrolls; 900 pixels unless given. */
  minTableWidth?: number;
  /** Whether the list warns that no target is allowed yet (nothing could be scanned). */
  warnNothingAllowed?: boolean;
  /** Columns of the facts card: one where the kind's Body sets it beside another card. */
  factColumns: 1 | 2;
  /** The facts before Template, Scan node and Schedule, and those after them. */
  facts: (scan: S) => { first: ScanFact[]; last?: ScanFact[] };
  form: ScanFormDescription<S, B, F>;
  /** What the page shows under the scan's title (progress of a run, what it refused). */
  HeaderNote?: ComponentType<{ scan: S }>;
  /** The rest of the scan page: the facts card (given) and the kind's runs and results. */
  Body: ComponentType<{ scan: S; facts: ReactNode }>;
}

/** What the parts of the scan page are given: the kind's view and the scan. */
export interface ScanViewProps<S extends ListedScan, B, F extends string> {
  view: ScanKindView<S, B, F>;
  scan: S;
}

/** The words a kind's pages say, from its noun where the kind gives no other. */
export function wordsOf<S extends ListedScan>(labels: ScanKindView<S, unknown>['labels']) {
  const Noun = labels.noun.charAt(0).toUpperCase() + labels.noun.slice(1);
  return {
    /** "Discovery scan": the document's title while the scan loads, and its saved message. */
    Noun,
    title: `${Noun}s`,
    newButton: labels.newButton ?? `New ${labels.noun}`,
    emptyTitle: `No ${labels.noun}s yet`,
    anyNode: labels.anyNode ?? `Any node serving ${labels.noun}s`,
    deleteText: (scan: S) =>
      labels.deleteText?.(scan) ?? `Delete “${scan.Name}” and its runs? Its findings and the assets stay.`,
  };
}

/**
 * A kind's view with its types sealed in: a page given one renders it without knowing the scan's
 * type (the registry holds three kinds of different scan and body types).
 */
export type SealedScanView = <R>(
  use: <S extends ListedScan, B, F extends string>(view: ScanKindView<S, B, F>) => R,
) => R;

export function sealScanView<S extends ListedScan, B, F extends string>(
  view: ScanKindView<S, B, F>,
): SealedScanView {
  return (use) => use(view);
}
