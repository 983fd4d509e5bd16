import fs from 'node:fs';
import path from 'node:path';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { ENV_VARS } from '../../src/config.js';
import { requireAccessDeclarations } from '../../src/http/channels.js';
import { Problems } from '../../src/http/problems/types.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return /\.(ts|mjs)$/.test(e.name) ? [p] : [];
  });
}

const files = sourceFiles(path.join(ROOT, 'src'));
const importsOf = (file: string) =>
  [...fs.readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)].map((m) =>
    path.resolve(path.dirname(file), m[1]!),
  );

describe('architecture rules', () => {
  it('no module reaches into another module’s repository', () => {
    const offences: string[] = [];
    for (const file of files) {
      const own = /src\/modules\/([^/]+)\//.exec(file)?.[1];
      for (const target of importsOf(file)) {
        const m = /src\/modules\/([^/]+)\/repository\.js$/.exec(target);
        if (m && m[1] !== own && !file.endsWith('src/app.ts'))
          offences.push(`${path.relative(ROOT, file)} → ${m[1]}/repository`);
      }
    }
    expect(offences).toEqual([]);
  });

  it('only repositories, db/ and the composition root touch SQL', () => {
    const offences = files.filter((f) => {
      const rel = path.relative(ROOT, f);
      if (rel.startsWith('src/db/') || rel.endsWith('repository.ts')) return false;
      return (
        /from 'kysely'/.test(fs.readFileSync(f, 'utf8')) &&
        !/import type/.test(fs.readFileSync(f, 'utf8').match(/.*from 'kysely'.*/)?.[0] ?? '')
      );
    });
    expect(offences.map((f) => path.relative(ROOT, f))).toEqual([]);
  });

  it('services know nothing of Fastify', () => {
    const offences = files.filter(
      (f) => f.endsWith('service.ts') && /from 'fastify'/.test(fs.readFileSync(f, 'utf8')),
    );
    expect(offences).toEqual([]);
  });

  it('the README documents every environment variable and every problem type', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    for (const name of Object.keys(ENV_VARS)) expect(readme, name).toContain(`\`${name}\``);
    for (const p of Object.values(Problems)) expect(readme, p.slug).toContain(`\`${p.slug}\``);
  });
});

describe('route declarations', () => {
  it('refuses at start an API route that declares no access', async () => {
    const app = Fastify({ logger: false });
    requireAccessDeclarations(app);
    app.get('/status', { config: {} }, async () => 'fine outside /api');
    expect(() => app.get('/api/latest/things', async () => [])).toThrow(/declares no access/);
    expect(() =>
      app.get('/api/latest/open', { config: { access: { public: true } } }, async () => []),
    ).not.toThrow();
    await app.close();
  });
});
