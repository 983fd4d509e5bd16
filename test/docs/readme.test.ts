import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

interface Table {
  line: number;
  rows: string[];
}

/** The Markdown tables of a document (outside code blocks), with the line each starts on. */
function tablesOf(markdown: string): Table[] {
  const tables: Table[] = [];
  let current: Table | null = null;
  let fenced = false;
  markdown.split('\n').forEach((text, index) => {
    if (/^\s*```/.test(text)) fenced = !fenced;
    const row = !fenced && /^\s*\|/.test(text);
    if (row && current) current.rows.push(text.trim());
    else if (row) current = { line: index + 1, rows: [text.trim()] };
    else if (current) {
      tables.push(current);
      current = null;
    }
  });
  if (current) tables.push(current);
  return tables;
}

const cells = (row: string) =>
  row
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((c) => c.trim());
const isSeparator = (row: string) => cells(row).every((c) => /^:?-{3,}:?$/.test(c));

/** What is wrong with a table's header, or undefined: GitHub renders a table only under a header row. */
function headerProblem(table: Table): string | undefined {
  const [header, separator] = table.rows;
  if (!header || isSeparator(header)) return 'starts with a separator row, not a header';
  if (!separator || !isSeparator(separator)) return 'has no separator row under its header';
  if (cells(header).some((c) => c === '')) return 'has an empty header cell';
  if (cells(separator).length !== cells(header).length) return 'separator and header differ in columns';
  if (table.rows.slice(2).some(isSeparator)) return 'repeats a separator row';
  return undefined;
}

describe('the README as a reader of the repository finds it', () => {
  const readme = read('README.md');

  it('gives every table a header row', () => {
    const tables = tablesOf(readme);
    expect(tables.length).toBeGreaterThan(8);
    const problems = tables.flatMap((t) => {
      const problem = headerProblem(t);
      return problem ? [`README.md line ${t.line}: ${problem}`] : [];
    });
    expect(problems).toEqual([]);
  });

  it('tells a table without a header from one with', () => {
    expect(headerProblem({ line: 1, rows: ['|---|---|', '| a | b |'] })).toMatch(/separator row/);
    expect(headerProblem({ line: 1, rows: ['|---|---|', '|---|---|', '| a | b |'] })).toMatch(/separator/);
    expect(headerProblem({ line: 1, rows: ['| Method | Role | |', '|---|---|---|'] })).toMatch(
      /empty header/,
    );
    expect(headerProblem({ line: 1, rows: ['| a | b |', '| c | d |'] })).toMatch(/no separator/);
    expect(headerProblem({ line: 1, rows: ['| a | b |', '|---|:---:|', '| c | d |'] })).toBeUndefined();
    expect(tablesOf('```\n| not | a table |\n```\n| a | b |\n|---|---|\n')).toHaveLength(1);
  });

  it('points only to what the repository holds (no ../shared/…)', () => {
    for (const file of ['README.md', 'NOTICE', 'knowledge-base/NOTICE.md', 'bench/README.md'])
      expect(read(file), file).not.toMatch(/\.\.\/shared\b/);
    // Relative links lead to files of the repository.
    const links = [...readme.matchAll(/\]\((?!https?:|#|mailto:)([^)\s]+)\)/g)].map((m) => m[1] as string);
    for (const link of links)
      expect(existsSync(path.join(ROOT, link.split('#')[0] as string)), link).toBe(true);
  });

  it('says which header names and values are case-sensitive as HTTP has it', () => {
    // HTTP header names are case-insensitive (RFC 9110 §5.1); the key values are not.
    expect(readme).not.toMatch(/header names? (are|is) case-sensitive/i);
    expect(readme).toMatch(/header names are case-insensitive/i);
    expect(readme).toMatch(/values are case-sensitive/i);
  });

  it('says how current the knowledge base is and what to do about it', () => {
    expect(readme).toMatch(/Stale/);
    expect(readme).toMatch(/DataDate/);
    expect(readme).toMatch(/more than 30 days/);
  });
});
