import { type CsvColumn, csvLines } from '../../../http/csv.js';
import type { FindingReportRow } from '../../findings/types.js';
import type { ExecutiveData } from '../types.js';
import { dateOf, figureTables, headline, locationText, riskText } from './common.js';

/** A technical report's CSV: one row per finding. */
export const TECHNICAL_CSV: readonly CsvColumn<FindingReportRow>[] = [
  { header: 'FindingId', value: (r) => r.id },
  { header: 'AssetId', value: (r) => r.assetId },
  { header: 'Asset', value: (r) => r.assetName },
  { header: 'Title', value: (r) => r.title },
  { header: 'Severity', value: (r) => r.effectiveSeverity },
  { header: 'Risk', value: (r) => riskText(r.riskScore) },
  { header: 'State', value: (r) => r.state },
  { header: 'CVE', value: (r) => r.cves },
  { header: 'KEV', value: (r) => r.kev },
  { header: 'Location', value: (r) => locationText(r) },
  { header: 'FirstSeen', value: (r) => dateOf(r.firstSeenAt) },
  { header: 'Due', value: (r) => dateOf(r.dueAt) },
  { header: 'Solution', value: (r) => r.solution },
];

export const technicalCsv = (rows: AsyncIterable<FindingReportRow>) => csvLines(TECHNICAL_CSV, rows);

interface FigureRow {
  section: string;
  name: string;
  values: string[];
}

const FIGURE_CSV: readonly CsvColumn<FigureRow>[] = [
  { header: 'Section', value: (r) => r.section },
  { header: 'Name', value: (r) => r.name },
  ...[0, 1, 2, 3].map((i) => ({ header: `Value${i + 1}`, value: (r: FigureRow) => r.values[i] ?? '' })),
];

/** An executive report's CSV: its headline figures, then each table's rows under its title. */
export async function* executiveCsv(d: ExecutiveData): AsyncGenerator<string> {
  async function* rows(): AsyncGenerator<FigureRow> {
    for (const [name, value] of headline(d)) yield { section: 'Headline', name, values: [value] };
    for (const t of figureTables(d))
      for (const row of t.rows) yield { section: t.title, name: row[0]!, values: row.slice(1) };
  }
  yield* csvLines(FIGURE_CSV, rows());
}
