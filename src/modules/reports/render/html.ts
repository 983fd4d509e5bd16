import type { FindingReportRow } from '../../findings/types.js';
import type { ExecutiveData, ReportSpec } from '../types.js';
import {
  type FigureTable,
  groupKeyOf,
  groupTitleOf,
  headline,
  SEVERITY_COLOURS,
  TECHNICAL_COLUMNS,
  technicalCells,
} from './common.js';

// Reports as one self-contained HTML page: no script, no external file; charts are inline SVG;
// a print style sheet lays it out for paper (A4, tables that repeat their header).

/** A chart of a report: its SVG and the figures it draws, as a table. */
export interface ReportChart {
  title: string;
  svg: string;
  table: FigureTable;
}

export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const STYLE = `
:root { color-scheme: light; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #111827; }
body { margin: 2rem auto; max-width: 1100px; padding: 0 1rem; }
h1 { font-size: 1.6rem; margin-bottom: .2rem; } h2 { font-size: 1.2rem; margin-top: 1.6rem; }
.meta { color: #4b5563; margin-top: 0; }
.figures { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: .5rem; }
.figure { border: 1px solid #d1d5db; border-radius: 6px; padding: .5rem .75rem; }
.figure .label { font-size: .8rem; color: #4b5563; } .figure .value { font-size: 1.3rem; font-weight: 600; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); gap: 1rem; }
figure { margin: 1rem 0; break-inside: avoid; } figure svg { max-width: 100%; height: auto; }
figcaption { font-weight: 600; margin-bottom: .3rem; }
table { border-collapse: collapse; width: 100%; font-size: .85rem; margin: .4rem 0 1rem; }
th, td { border: 1px solid #d1d5db; padding: .25rem .4rem; text-align: left; vertical-align: top; }
thead th { background: #f3f4f6; }
.sev { font-weight: 600; }
${Object.entries(SEVERITY_COLOURS)
  .map(([s, c]) => `.sev-${s} { color: ${c}; }`)
  .join('\n')}
@media print {
  @page { size: A4; margin: 15mm; }
  body { margin: 0; max-width: none; font-size: 10pt; }
  thead { display: table-header-group; } tr { break-inside: avoid; }
  h2 { break-after: avoid; }
}`;

function page(title: string, meta: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><header><h1>${escapeHtml(title)}</h1><p class="meta">${escapeHtml(meta)}</p></header>
`;
}

const END = '</body></html>\n';

function table(t: FigureTable, caption = true): string {
  const head = t.head.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('');
  const rows = t.rows.map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`).join('\n');
  return `<table>${caption ? `<caption>${escapeHtml(t.title)}</caption>` : ''}<thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table>`;
}

/** An executive report: the headline figures, each chart with its figures, the rankings. */
export function executiveHtml(d: ExecutiveData, charts: ReportChart[], rankings: FigureTable[]): string {
  const figures = headline(d)
    .map(
      ([label, value]) =>
        `<div class="figure"><div class="label">${escapeHtml(label)}</div><div class="value">${escapeHtml(value)}</div></div>`,
    )
    .join('\n');
  const chartHtml = charts
    .map(
      (c) =>
        `<figure><figcaption>${escapeHtml(c.title)}</figcaption>${c.svg}${table(c.table, false)}</figure>`,
    )
    .join('\n');
  const rankingHtml = rankings.map((t) => `<h2>${escapeHtml(t.title)}</h2>${table(t, false)}`).join('\n');
  const trendNote =
    d.trend.length === 0
      ? '<p>No history is recorded for this scope and period (a findings filter has none): the trend charts are left out.</p>'
      : '';
  return `${page(d.title, `${d.scopeLabel} · ${d.from} to ${d.to} · generated ${d.generatedAt.toISOString()}`)}
<section><h2>Headline figures</h2><div class="figures">${figures}</div></section>
<section><h2>Charts</h2>${trendNote}<div class="charts">${chartHtml}</div></section>
<section>${rankingHtml}</section>
${END}`;
}

/**
 * A technical report, written as its rows arrive: a heading and a table per asset (or
 * vulnerability). `onRow` is called after each row (progress).
 */
export async function* technicalHtml(
  title: string,
  meta: string,
  spec: ReportSpec,
  rows: AsyncIterable<FindingReportRow>,
): AsyncGenerator<string> {
  yield page(title, meta);
  const head = `<thead><tr>${TECHNICAL_COLUMNS.map((c) => `<th scope="col">${c}</th>`).join('')}</tr></thead>`;
  let group: string | undefined;
  let count = 0;
  for await (const r of rows) {
    const key = groupKeyOf(r, spec.groupBy);
    let out = '';
    if (key !== group) {
      if (group !== undefined) out += '</tbody></table></section>\n';
      out += `<section><h2>${escapeHtml(groupTitleOf(r, spec.groupBy))}</h2><table>${head}<tbody>\n`;
      group = key;
    }
    const cells = technicalCells(r);
    out += `<tr>${cells
      .map((c, i) =>
        i === 2 ? `<td class="sev sev-${escapeHtml(c)}">${escapeHtml(c)}</td>` : `<td>${escapeHtml(c)}</td>`,
      )
      .join('')}</tr>\n`;
    count++;
    yield out;
  }
  if (group !== undefined) yield '</tbody></table></section>\n';
  if (count === 0) yield '<p>No findings.</p>\n';
  yield END;
}
