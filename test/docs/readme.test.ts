import { existsSync, readdirSync, readFileSync } from 'node:fs';
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

/**
 * Repository paths a text names (src/…, test/…, docs/…), without a trailing dot; a path inside
 * another folder (web/src/…) and the placeholder part of a pattern (`<resource>`) are left out.
 */
function pathsNamedIn(text: string): string[] {
  return [...text.matchAll(/(?<![\w/.-])((?:src|test|knowledge-base|docs|bench|scripts)\/[\w./-]*\w)/g)].map(
    (m) => m[1] as string,
  );
}

/** The README and every page under docs/ (the decision records included), by repository path. */
function documents(): string[] {
  const pages = (dir: string) =>
    readdirSync(path.join(ROOT, dir))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `${dir}/${f}`);
  return ['README.md', ...pages('docs'), ...pages('docs/adr')];
}

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens. */
function slugOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a document's headings (outside code blocks). */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.*)$/.exec(line);
    if (heading) anchors.add(slugOf(heading[1] as string));
  }
  return anchors;
}

/** Every relative link of a document that leads nowhere: no such file, or no such heading in it. */
function brokenLinks(file: string): string[] {
  const text = read(file);
  const broken: string[] = [];
  for (const match of text.matchAll(/\]\((?!https?:|mailto:)([^)\s]+)\)/g)) {
    const link = match[1] as string;
    const [target, anchor] = link.split('#') as [string, string | undefined];
    const targetPath = target === '' ? file : path.join(path.dirname(file), target);
    if (!existsSync(path.join(ROOT, targetPath))) {
      broken.push(`${file}: ${link} (no file ${targetPath})`);
      continue;
    }
    if (anchor !== undefined && targetPath.endsWith('.md') && !anchorsOf(read(targetPath)).has(anchor))
      broken.push(`${file}: ${link} (no heading #${anchor} in ${targetPath})`);
  }
  return broken;
}

describe('the README and docs/ as a reader of the repository finds them', () => {
  const readme = read('README.md');

  it('keeps the README an entry page: what it is, quick start, first call, where to read on', () => {
    const lines = readme.split('\n').length;
    expect(lines, 'README.md lines').toBeLessThanOrEqual(200);
    for (const heading of ['## Quick start', '## Your first API call', '## Where to read on'])
      expect(readme).toContain(heading);
    // CI runs the README's test command as it is written there.
    const command = 'npm install && npm test';
    expect(readme).toMatch(/^npm install && npm start {2,}#/m);
    expect(readme).toMatch(/^npm install && npm test {2,}#/m);
    expect(read('.ci/run')).toMatch(new RegExp(`^${command.replace(/[&]/g, '\\$&')}$`, 'm'));
  });

  it('gives every table a header row', () => {
    const tables = documents().flatMap((file) => tablesOf(read(file)).map((t) => ({ file, ...t })));
    expect(tables.length).toBeGreaterThan(8);
    const problems = tables.flatMap((t) => {
      const problem = headerProblem(t);
      return problem ? [`${t.file} line ${t.line}: ${problem}`] : [];
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
    for (const file of ['NOTICE', 'knowledge-base/NOTICE.md', 'bench/README.md', ...documents()])
      expect(read(file), file).not.toMatch(/\.\.\/shared\b/);
    // Relative links lead to files of the repository, and an anchor to a heading of that file.
    expect(documents().flatMap(brokenLinks)).toEqual([]);
  });

  it('names only repository paths that exist', () => {
    const missing = [...documents().filter((f) => !f.startsWith('docs/adr/')), 'CONTRIBUTING.md'].flatMap(
      (file) =>
        pathsNamedIn(read(file)).flatMap((named) =>
          existsSync(path.join(ROOT, named)) ? [] : [`${file}: ${named}`],
        ),
    );
    expect(missing).toEqual([]);
    expect(
      pathsNamedIn('see web/src/api/schema.gen.ts, src/config.ts and `src/modules/<resource>/`.'),
    ).toEqual(['src/config.ts', 'src/modules']);
  });

  it('tells a link that leads nowhere from one that leads somewhere', () => {
    expect(slugOf("The original service's calls")).toBe('the-original-services-calls');
    expect(slugOf('`npm run bench:cpe` — the index')).toBe('npm-run-benchcpe--the-index');
    expect(anchorsOf('# A\n```\n# not a heading\n```\n## Exit codes\n')).toEqual(
      new Set(['a', 'exit-codes']),
    );
    expect(brokenLinks('README.md')).toEqual([]);
    const readmeAnchors = anchorsOf(readme);
    expect(readmeAnchors.has('quick-start')).toBe(true);
    expect(readmeAnchors.has('no-such-section')).toBe(false);
  });

  it('says which header names and values are case-sensitive as HTTP has it', () => {
    // HTTP header names are case-insensitive (RFC 9110 §5.1); the key values are not.
    const api = read('docs/api.md');
    for (const text of [readme, api]) expect(text).not.toMatch(/header names? (are|is) case-sensitive/i);
    expect(api).toMatch(/header names are case-insensitive/i);
    expect(api).toMatch(/values are case-sensitive/i);
  });

  it('says how current the knowledge base is and what to do about it', () => {
    const intelligence = read('docs/intelligence.md');
    expect(intelligence).toMatch(/Stale/);
    expect(intelligence).toMatch(/DataDate/);
    expect(intelligence).toMatch(/more than 30 days/);
  });
});
