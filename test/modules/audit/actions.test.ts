import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AUDIT_ACTIONS } from '../../../src/modules/audit/actions.js';
import { AUDIT_ACTION_NAMES } from '../../../web/src/features/audit-log/actions.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const sources = (dir: string): string[] =>
  readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(`${dir}/${e.name}`) : e.name.endsWith('.ts') ? [`${dir}/${e.name}`] : [],
  );

/** The action names the services record, as written in their audit.record calls. */
function recordedNames(): string[] {
  const names = new Set<string>();
  for (const file of sources('src')) {
    const text = read(file);
    // The first dotted literal after the call: its action (the context before it names none).
    for (const m of text.matchAll(/(?:audit\.record|this\.audited)\([\s\S]{0,400}?'([a-z-]+\.[a-z_.-]+)'/g))
      names.add(m[1]!);
  }
  // Saved scans record `<auditType>.<action>` for each kind.
  for (const kind of ['discovery', 'system', 'web']) {
    const definition = read(`src/modules/${kind}scans/definition.ts`);
    const type = /auditType: '([^']+)'/.exec(definition)![1]!;
    for (const action of ['created', 'updated', 'deleted', 'started', 'stopped'])
      names.add(`${type}.${action}`);
    for (const m of definition.matchAll(/audit: \{ action: '([^']+)'/g)) names.add(`${type}.${m[1]}`);
  }
  return [...names];
}

describe('the audit log’s action names', () => {
  const catalogued = Object.keys(AUDIT_ACTIONS);

  it('catalogue every action the services record', () => {
    const recorded = recordedNames();
    expect(recorded.length).toBeGreaterThan(30);
    expect(recorded.filter((name) => !catalogued.includes(name))).toEqual([]);
  });

  it('are the same in the web app’s action filter and in docs/audit-log.md', () => {
    expect([...AUDIT_ACTION_NAMES].sort()).toEqual([...catalogued].sort());
    const page = read('docs/audit-log.md');
    expect(catalogued.filter((name) => !page.includes(`| \`${name}\` |`))).toEqual([]);
  });
});
