import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const pkg = JSON.parse(read('package.json')) as { license: string; files: string[] };

/** Repository paths a text names (src/…, test/…, knowledge-base/…, docs/…), without a trailing dot. */
function pathsNamedIn(text: string): string[] {
  return [...text.matchAll(/\b((?:src|test|knowledge-base|docs|bench|scripts)\/[\w./*-]*[\w*])/g)].map(
    (m) => m[1] as string,
  );
}

/** Whether a named path exists; a `*` in the last part matches any file name. */
function exists(named: string): boolean {
  if (!named.includes('*')) return existsSync(path.join(ROOT, named));
  const dir = path.dirname(named);
  const pattern = new RegExp(`^${path.basename(named).replace(/\./g, '\\.').replace(/\*/g, '.*')}$`);
  return existsSync(path.join(ROOT, dir)) && readdirSync(path.join(ROOT, dir)).some((f) => pattern.test(f));
}

describe('Rampart as an open-source package', () => {
  it('is Apache-2.0 in package.json, package-lock.json and LICENSE', () => {
    expect(pkg.license).toBe('Apache-2.0');
    const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { license?: string }> };
    expect(lock.packages['']?.license).toBe('Apache-2.0');
    const license = read('LICENSE');
    expect(license).toMatch(/^\s+Apache License\n\s+Version 2\.0, January 2004/);
    expect(license).toMatch(/END OF TERMS AND CONDITIONS/);
  });

  it('ships the knowledge base, the licence, the notice and the documentation the README links to', () => {
    for (const entry of ['bin', 'dist', 'knowledge-base', 'LICENSE', 'NOTICE', 'README.md', 'docs'])
      expect(pkg.files, entry).toContain(entry);
  });

  it('keeps NOTICE self-contained: every path it names is in the repository', () => {
    const notice = read('NOTICE');
    expect(notice).toMatch(/^Rampart\nCopyright \d{4} The Rampart Authors\n/);
    expect(notice).not.toMatch(/\.\.\//);
    const named = pathsNamedIn(notice);
    expect(named.length).toBeGreaterThan(3);
    expect(named.filter((p) => !exists(p))).toEqual([]);
  });

  it('finds the paths a text names, and tells a missing one', () => {
    expect(pathsNamedIn('see knowledge-base/NOTICE.md and src/demo/catalogue.json.')).toEqual([
      'knowledge-base/NOTICE.md',
      'src/demo/catalogue.json',
    ]);
    expect(exists('knowledge-base/*.json.gz')).toBe(true);
    expect(exists('knowledge-base/*.xml')).toBe(false);
    expect(exists('test/fixtures/NOPE.md')).toBe(false);
  });

  it('has the files a contributor looks for first', () => {
    for (const file of ['CONTRIBUTING.md', '.editorconfig', '.nvmrc'])
      expect(existsSync(path.join(ROOT, file)), file).toBe(true);
    expect(read('.nvmrc').trim()).toBe('24');
    const adrs = readdirSync(path.join(ROOT, 'docs/adr')).filter((f) => /^\d{4}-.+\.md$/.test(f));
    expect(adrs.length).toBeGreaterThanOrEqual(4);
    // Every decision record says its status, the context and the decision.
    for (const adr of adrs) {
      const text = read(`docs/adr/${adr}`);
      expect(text, adr).toMatch(/^# \d+\. /m);
      for (const heading of ['## Status', '## Context', '## Decision', '## Consequences'])
        expect(text, `${adr}: ${heading}`).toContain(heading);
    }
  });
});
