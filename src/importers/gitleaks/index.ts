/**
 * Gitleaks JSON reports (`gitleaks detect --report-format json`, and v7's `--report`).
 *
 * Layouts: a JSON array of leaks. Gitleaks 8 writes `{ RuleID, Description, File, StartLine,
 * Match, Secret, Commit, Author, Date, Message, Tags, Fingerprint, Link… }`; Gitleaks 7 writes
 * `{ rule, file, lineNumber, line, offender, commit, repo, repoURL, leakURL, author, date,
 * commitMessage, tags }`. A report without leaks is `[]` (v8) or `null` (v7): both are read as
 * an empty report.
 *
 * One finding per leak: asset the CodeRepository the report names (v7 `repoURL`, else `repo`
 * when it is not "."; v8 the repository in `Link`, which newer versions write for a repository
 * with a remote, e.g. "https://github.com/org/repo/blob/<commit>/<file>#L2"), else "gitleaks
 * workspace"; location the file and line; rule id RuleID (v7: rule); CWE-798; toolFindingId the
 * v8 Fingerprint. Repeats of one secret in several commits stay separate records (each has its
 * own commit); the import merges them on asset, rule and location.
 *
 * Severity (GITLEAKS_SEVERITY): every leak is High — a secret in a repository is exposed to
 * everyone who can read its history. Gitleaks rates nothing itself.
 *
 * Secrets: never stored. The evidence is the match with the secret MASKED (at most its first 4
 * characters and never more than half of it, then "…"; v7: the masked `offender`); `Secret`,
 * `offender` and the source `line` are kept nowhere else, and user info (a token) in a
 * repository URL is dropped.
 *
 * Memory: one leak at a time.
 */
import type { Readable } from 'node:stream';
import { jsonValues } from '../../parsing/json.js';
import { asNumber, asObject, asText, type JsonObject, texts } from '../../parsing/json-fields.js';
import { ReportError } from '../../parsing/report-error.js';
import { shapeCheck } from '../../parsing/shape.js';
import { type TextLimits, textLimits } from '../common/limits.js';
import { peekStart } from '../common/stream-start.js';
import { tidyRecord } from '../common/tidy-record.js';
import type { AssetRef, FindingRecord, Importer, ImportRecord, ParseContext, Severity } from '../types.js';

/** Where the reader goes through the report: each must be of its kind, or the report fails there. */
const GITLEAKS_SHAPE = shapeCheck('a Gitleaks JSON report', [
  ['', 'array?', 'a list of leaks'],
  ['[]', 'object', 'a leak object'],
]);

/** Gitleaks has no severities: every leaked secret is High. */
export const GITLEAKS_SEVERITY: Readonly<{ leak: Severity }> = { leak: 'High' };

/** The repository name used when the report does not name the scanned repository. */
export const GITLEAKS_DEFAULT_REPOSITORY = 'gitleaks workspace';

/** Characters of a secret kept in evidence. */
const KEPT_CHARS = 4;

/**
 * A secret's first characters and "…": enough to recognise it, not to use it. At most 4 are
 * kept, and never more than half of the secret, so a short secret is not kept whole.
 */
export function maskSecret(secret: string): string {
  const chars = Array.from(secret);
  return `${chars.slice(0, Math.min(KEPT_CHARS, Math.floor(chars.length / 2))).join('')}…`;
}

/** `text` with every occurrence of `secret` masked; the whole text masked when it does not hold it. */
function masked(text: string | undefined, secret: string | undefined): string | undefined {
  if (!text) return secret ? maskSecret(secret) : undefined;
  if (!secret) return maskSecret(text);
  return text.includes(secret) ? text.split(secret).join(maskSecret(secret)) : maskSecret(text);
}

function positiveLine(value: unknown): number | undefined {
  const n = asNumber(value);
  return n !== undefined && Number.isInteger(n) && n > 0 ? n : undefined;
}

/** The repository of a Gitleaks 8 link: "https://host/org/repo/blob/<commit>/<file>#L2". */
function repositoryOfLink(link: string | undefined): string | undefined {
  const match = /^(https?:\/\/[^/\s]+\/[^\s]+?)\/(?:-\/)?blob\//i.exec(link ?? '');
  return match?.[1];
}

function repositoryOf(leak: JsonObject): AssetRef {
  const url = (asText(leak.repoURL) ?? repositoryOfLink(asText(leak.Link)))?.replace(
    /^(https?:\/\/)[^@/\s]*@/i,
    '$1',
  );
  const repo = asText(leak.repo);
  const repository = url ?? (repo && repo !== '.' ? repo : GITLEAKS_DEFAULT_REPOSITORY);
  return { kind: 'CodeRepository', repository };
}

function tagsOf(value: unknown): string[] {
  if (typeof value === 'string')
    return value
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
  return texts(value);
}

/** True when the object has the keys of a Gitleaks 8 (RuleID) or 7 (rule + offender) leak. */
function isLeak(leak: JsonObject): boolean {
  return 'RuleID' in leak || ('rule' in leak && ('offender' in leak || 'file' in leak));
}

/** The finding of one leak, or undefined when it names no rule. */
export function leakFinding(leak: JsonObject): FindingRecord | undefined {
  const v8 = 'RuleID' in leak;
  const ruleId = asText(v8 ? leak.RuleID : leak.rule);
  if (!ruleId) return undefined;
  const described = asText(leak.Description) ?? (v8 ? undefined : ruleId);
  const filePath = asText(v8 ? leak.File : leak.file);
  const line = positiveLine(v8 ? leak.StartLine : leak.lineNumber);
  const commit = asText(v8 ? leak.Commit : leak.commit);
  const author = asText(v8 ? leak.Author : leak.author);
  const date = asText(v8 ? leak.Date : leak.date);
  const message = asText(v8 ? leak.Message : leak.commitMessage);
  const tags = tagsOf(v8 ? leak.Tags : leak.tags);
  const link = asText(v8 ? leak.Link : leak.leakURL);
  // v8: the secret is `Secret` inside `Match`; v7: `offender` is the match, inside `line`.
  const evidence = v8
    ? masked(asText(leak.Match), asText(leak.Secret))
    : masked(asText(leak.offender), asText(leak.offender));

  const description = [
    `Gitleaks found a secret (${described ?? ruleId}) ${filePath ? `in ${filePath}` : ''}${line ? ` at line ${line}` : ''}.`,
    commit ? `Commit: ${commit}` : undefined,
    author ? `Author: ${author}` : undefined,
    date ? `Date: ${date}` : undefined,
    message ? `Commit message: ${message}` : undefined,
    tags.length > 0 ? `Tags: ${tags.join(', ')}` : undefined,
  ]
    .filter(Boolean)
    .join('\n');

  return {
    type: 'finding',
    asset: repositoryOf(leak),
    vulnerability: {
      ruleId,
      title: `Hard-coded secret: ${described ?? ruleId}`,
      description,
      solution:
        'Revoke and rotate the secret, remove it from the code and its history, and load it from a secret store.',
      cweIds: ['CWE-798'],
      ...(link && /^https?:\/\//i.test(link) ? { references: [link] } : {}),
    },
    location: { kind: 'File', ...(filePath ? { filePath } : {}), ...(line ? { line } : {}) },
    severity: GITLEAKS_SEVERITY.leak,
    ...(evidence ? { evidence } : {}),
    ...(asText(leak.Fingerprint) ? { toolFindingId: asText(leak.Fingerprint) } : {}),
  };
}

export const gitleaksImporter: Importer = {
  format: 'gitleaks',
  label: 'Gitleaks JSON (v7 and v8)',
  tool: 'Gitleaks',

  detect(head: string): number {
    const start = head.replace(/^\uFEFF/, '').trimStart();
    if (!start.startsWith('[')) return 0;
    if (/"RuleID"\s*:/.test(head) && /"(Secret|Match|StartLine|Fingerprint)"\s*:/.test(head)) return 0.9;
    if (/"offender"\s*:/.test(head) && /"rule"\s*:/.test(head) && /"(commit|lineNumber|file)"\s*:/.test(head))
      return 0.9;
    return 0;
  },

  async *parse(input: Readable, context: ParseContext): AsyncIterable<ImportRecord> {
    const start = await peekStart(input);
    if (start.first === undefined)
      throw new ReportError('The file is empty: a Gitleaks JSON report was expected.');
    if (start.first !== '[' && start.first !== 'n')
      throw new ReportError('This is not a Gitleaks JSON report: it is not a list of leaks.');
    const limits: TextLimits = textLimits(context);
    let skipped = 0;
    let index = 0;
    const values = jsonValues(start.input, (path) => path.length === (start.first === 'n' ? 0 : 1), {
      onValue: GITLEAKS_SHAPE,
      maxStringChars: Math.max(context.maxFieldChars, context.maxEvidenceChars) + 1,
    });
    for await (const { path, value } of values) {
      if (path.length === 0) {
        if (value !== null)
          throw new ReportError('This is not a Gitleaks JSON report: it is not a list of leaks.');
        continue;
      }
      const leak = asObject(value);
      if (!leak || !isLeak(leak)) {
        if (index === 0)
          throw new ReportError(
            'This is not a Gitleaks JSON report: its first entry has neither RuleID (Gitleaks 8) nor rule and offender (Gitleaks 7).',
          );
        skipped += 1;
        continue;
      }
      index += 1;
      const finding = leakFinding(leak);
      if (finding) yield tidyRecord(finding, limits);
      else skipped += 1;
    }
    if (skipped > 0) context.warn(`${skipped} Gitleaks entries without a rule were skipped.`);
  },
};
