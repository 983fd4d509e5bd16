import { createRequire } from 'node:module';
import PDFDocument from 'pdfkit';
import pdfmake from 'pdfmake';
import type { Content, TDocumentDefinitions } from 'pdfmake/interfaces.js';
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
import type { ReportChart } from './html.js';

// PDFs made on the server: the executive summary laid out by pdfmake (its charts drawn as vectors
// from their SVG), the technical report written row by row with pdfkit, page after page, so that
// a report of any size is never held whole in memory. Fonts are the Roboto files pdfmake ships:
// nothing is fetched, and nothing else is read from disk.

const require = createRequire(import.meta.url);
const FONT_DIR = require
  .resolve('pdfmake/fonts/Roboto/Roboto-Regular.ttf')
  .replace(/Roboto-Regular\.ttf$/, '');
const FONTS = {
  Roboto: {
    normal: `${FONT_DIR}Roboto-Regular.ttf`,
    bold: `${FONT_DIR}Roboto-Medium.ttf`,
    italics: `${FONT_DIR}Roboto-Italic.ttf`,
    bolditalics: `${FONT_DIR}Roboto-MediumItalic.ttf`,
  },
};
const FONT_FILES = new Set(Object.values(FONTS.Roboto));

pdfmake.setFonts(FONTS);
// A report's text comes from findings (imported reports): no URL is ever fetched, no other file read.
pdfmake.setUrlAccessPolicy(() => false);
pdfmake.setLocalAccessPolicy((path) => FONT_FILES.has(path));

/** Where a renderer's bytes go; `drain` waits until what was written is stored. */
export interface ByteSink {
  write(data: Buffer): void;
  drain(): Promise<void>;
}

/** The figures of a chart (or a ranking) as a pdfmake table. */
function pdfTable(t: FigureTable): Content {
  return {
    table: {
      headerRows: 1,
      widths: t.head.map((_, i) => (i === 0 ? '*' : 'auto')),
      body: [t.head.map((h) => ({ text: h, bold: true })), ...t.rows],
    },
    layout: 'lightHorizontalLines',
    fontSize: 7,
    margin: [0, 2, 0, 8],
  };
}

/** An executive summary as a PDF; resolves with its page count once every byte went to `sink`. */
export async function executivePdf(
  d: ExecutiveData,
  charts: ReportChart[],
  rankings: FigureTable[],
  sink: ByteSink,
): Promise<number> {
  let pages = 0;
  const figures = headline(d);
  const content: Content[] = [
    { text: d.title, fontSize: 18, bold: true },
    {
      text: `${d.scopeLabel} · ${d.from} to ${d.to} · generated ${d.generatedAt.toISOString()}`,
      color: '#4b5563',
      margin: [0, 2, 0, 10],
    },
    { text: 'Headline figures', fontSize: 13, bold: true, margin: [0, 0, 0, 4] },
    {
      table: {
        widths: ['*', 'auto', '*', 'auto'],
        body: Array.from({ length: Math.ceil(figures.length / 2) }, (_, i) => {
          const a = figures[2 * i]!;
          const b = figures[2 * i + 1] ?? ['', ''];
          return [a[0], { text: a[1], bold: true }, b[0], { text: b[1], bold: true }];
        }),
      },
      layout: 'lightHorizontalLines',
      fontSize: 9,
      margin: [0, 0, 0, 10],
    },
  ];
  if (d.trend.length === 0)
    content.push({
      text: 'No history is recorded for this scope and period (a findings filter has none): the trend charts are left out.',
      italics: true,
      fontSize: 9,
      margin: [0, 0, 0, 6],
    });
  // Charts two abreast, each with its figures under it.
  const chartStack = (c: ReportChart) => ({
    stack: [
      { text: c.title, fontSize: 10, bold: true, margin: [0, 4, 0, 2] },
      { svg: c.svg, width: 250 },
      pdfTable(c.table),
    ] as Content[],
  });
  for (let i = 0; i < charts.length; i += 2) {
    const pair = charts.slice(i, i + 2);
    content.push({
      columns: pair.map((c) => ({ width: '50%', ...chartStack(c) }) as Content),
      columnGap: 15,
      unbreakable: true,
    } as Content);
  }
  for (const t of rankings) {
    content.push({ text: t.title, fontSize: 11, bold: true, margin: [0, 6, 0, 2] });
    content.push(pdfTable(t));
  }
  const doc: TDocumentDefinitions = {
    info: { title: d.title, creator: 'Rampart' },
    pageSize: 'A4',
    pageMargins: [40, 40, 40, 50],
    defaultStyle: { font: 'Roboto', fontSize: 10 },
    content,
    footer: (current, count) => {
      pages = Math.max(pages, count);
      return {
        text: `${d.title} · page ${current} of ${count}`,
        alignment: 'center',
        fontSize: 8,
        color: '#6b7280',
      };
    },
  };
  const stream = (await pdfmake.createPdf(doc).getStream()) as unknown as NodeJS.ReadableStream & {
    end(): void;
  };
  await new Promise<void>((resolve, reject) => {
    stream.on('data', (b: Buffer) => sink.write(b));
    stream.on('end', resolve);
    stream.on('error', reject);
    stream.end();
  });
  await sink.drain();
  return pages;
}

// The technical report's table: A4 landscape, 7-point text.
const MARGIN = 36;
const WIDTHS = [90, 150, 48, 30, 80, 90, 50, 50, 182];
const FONT_SIZE = 7;
const PAD = 2;
/** Long cells are cut: a row never outgrows a page. */
const CELL_CHARS = [120, 240, 12, 8, 160, 200, 12, 12, 600];

/**
 * A technical report as a PDF, page by page as the rows arrive: each page's content goes to
 * `sink` when the next page starts. `onRow` is awaited after each row (progress and back-pressure).
 * Resolves with the page count.
 */
export async function technicalPdf(
  title: string,
  meta: string,
  spec: ReportSpec,
  rows: AsyncIterable<FindingReportRow>,
  sink: ByteSink,
  onRow: () => Promise<void>,
): Promise<number> {
  const doc = new PDFDocument({
    size: 'A4',
    layout: 'landscape',
    margins: { top: MARGIN, bottom: MARGIN, left: MARGIN, right: MARGIN },
    info: { Title: title, Creator: 'Rampart' },
    bufferPages: false,
    autoFirstPage: false,
  });
  const ended = new Promise<void>((resolve, reject) => {
    doc.on('data', (b: Buffer) => sink.write(b));
    doc.on('end', resolve);
    doc.on('error', reject);
  });
  doc.registerFont('Regular', FONTS.Roboto.normal);
  doc.registerFont('Bold', FONTS.Roboto.bold);
  let pages = 0;
  doc.on('pageAdded', () => {
    pages++;
  });
  const bottom = () => doc.page.height - MARGIN - 12;
  const newPage = () => {
    doc.addPage();
    // The footer lies in the bottom margin: without it, pdfkit would start another page for it.
    const margin = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    doc
      .font('Regular')
      .fontSize(7)
      .fillColor('#6b7280')
      .text(`${title} · page ${pages}`, MARGIN, doc.page.height - MARGIN - 8, {
        width: doc.page.width - 2 * MARGIN,
        align: 'center',
        lineBreak: false,
      });
    doc.page.margins.bottom = margin;
    doc.fillColor('#111827');
    doc.y = MARGIN;
  };
  const drawRow = (cells: string[], bold: boolean, colours?: (string | undefined)[]) => {
    doc.font(bold ? 'Bold' : 'Regular').fontSize(FONT_SIZE);
    const texts = cells.map((c, i) => (c.length > CELL_CHARS[i]! ? `${c.slice(0, CELL_CHARS[i]! - 1)}…` : c));
    const height =
      Math.max(...texts.map((t, i) => doc.heightOfString(t || ' ', { width: WIDTHS[i]! - 2 * PAD }))) +
      2 * PAD;
    if (doc.y + height > bottom()) {
      newPage();
      if (!bold) drawHeader();
      doc.font('Regular').fontSize(FONT_SIZE);
    }
    const y = doc.y;
    let x = MARGIN;
    texts.forEach((t, i) => {
      doc.fillColor(colours?.[i] ?? '#111827').text(t, x + PAD, y + PAD, { width: WIDTHS[i]! - 2 * PAD });
      x += WIDTHS[i]!;
    });
    doc
      .moveTo(MARGIN, y + height)
      .lineTo(x, y + height)
      .lineWidth(0.3)
      .strokeColor('#d1d5db')
      .stroke();
    doc.fillColor('#111827');
    doc.y = y + height;
  };
  const drawHeader = () => drawRow([...TECHNICAL_COLUMNS], true);

  newPage();
  doc.font('Bold').fontSize(16).text(title, MARGIN, MARGIN);
  doc.font('Regular').fontSize(9).fillColor('#4b5563').text(meta).fillColor('#111827');
  doc.moveDown(0.5);
  let group: string | undefined;
  let count = 0;
  for await (const r of rows) {
    const key = groupKeyOf(r, spec.groupBy);
    if (key !== group) {
      if (doc.y + 40 > bottom()) newPage();
      doc.moveDown(0.4);
      doc
        .font('Bold')
        .fontSize(10)
        .text(groupTitleOf(r, spec.groupBy).slice(0, 200), MARGIN, doc.y, {
          width: doc.page.width - 2 * MARGIN,
        });
      doc.moveDown(0.2);
      drawHeader();
      group = key;
    }
    const cells = technicalCells(r);
    drawRow(
      cells,
      false,
      cells.map((_, i) => (i === 2 ? SEVERITY_COLOURS[r.effectiveSeverity] : undefined)),
    );
    count++;
    await onRow();
    await sink.drain();
  }
  if (count === 0) doc.font('Regular').fontSize(10).text('No findings.');
  doc.end();
  await ended;
  await sink.drain();
  return pages;
}
