import { isIP } from 'node:net';
import type { Static } from 'typebox';
import type { JobKind } from '../../jobs/catalogue.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, invalid } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import type { FieldIssue } from '../../problems/fields.js';
import type { TargetPolicy, WebSpec, WebTemplate, WebUrlResult } from '../../scanning/types.js';
import type { ServiceContext } from '../context.js';
import { assertNodeServes, checkTemplate, keptSchedule } from '../savedscans/checks.js';
import type { KindDependencies } from '../savedscans/dependencies.js';
import type { ScanKindDefinition, ScanTable } from '../savedscans/kind.js';
import { savedScanDtoFields } from '../savedscans/presenters.js';
import type { WebRunRepository } from './repository.js';
import { WebRunReportSchema, WebScanBody, WebScanSchema } from './schemas.js';
import type { WebScan, WebScanInput, WebScanWrite } from './types.js';

/** The job a scan's schedule enqueues at each occurrence. */
export const SCHEDULED_WEB_JOB = 'web-scan.start' satisfies JobKind;
/** The job that turns a completed run's results into findings. */
export const WEB_INGEST_JOB = 'web-scan.ingest' satisfies JobKind;

export const MAX_URLS = 256;
const MAX_URL_LENGTH = 2000;

/** The scan templates module: web templates by id, and the list to take the default from. */
export interface WebTemplates {
  find(
    ctx: ServiceContext,
    id: string,
  ): Promise<{ id: string; kind: string; name: string; settings: unknown } | undefined>;
  list(ctx: ServiceContext, kind: 'Web'): Promise<{ id: string; name: string }[]>;
}

/** What web scans ask of other modules beside what every saved scan does. */
export interface WebKindDependencies extends KindDependencies {
  templates: WebTemplates;
  clock: Clock;
  records: WebRunRepository;
}

/** A Verify run's narrowing: only these URLs, and only these findings may become Fixed. */
export interface WebVerify {
  urls: string[];
  findingIds: string[];
}

const URL_RULES =
  'Each URL must be absolute http or https without credentials, and its host inside the organisation’s allowed scan targets (a host name by the name rules, an address by the ranges, never an always-refused address): otherwise 400 or 422 `scan-target-refused` naming `/Urls/{i}`.';

/** The kind's table: its own columns beside those every saved scan has. */
export const webScanTable: ScanTable<WebScan, WebScanWrite> = {
  name: 'web_scans',
  columns: ['urls', 'scan_group_id'],
  fromRow: (r) => ({ urls: r.urls as string[], scanGroupId: r.scan_group_id as string | null }),
  toColumns: (w) => ({ urls: JSON.stringify(w.urls), scan_group_id: w.scanGroupId }),
  results: { name: 'web_run_urls', key: 'url', replaced: ['result'] },
  runTables: ['web_run_urls', 'web_runs'],
};

/** Our body as the service takes it. */
export function webScanInputOf(b: Static<typeof WebScanBody>): WebScanInput {
  return {
    name: b.Name,
    urls: b.Urls,
    templateId: b.TemplateId ?? null,
    nodeId: b.ScanNodeId ?? null,
    schedule: b.Schedule ?? null,
  };
}

/** A URL's host as a target text: brackets of an IPv6 literal removed, a trailing dot too. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
}

/** The absolute http(s) URL, or why it is not one. */
export function parseWebUrl(text: string): URL | string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return `'${text}' is not an absolute URL.`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `'${text}' is not an http or https URL.`;
  if (url.username || url.password) return `'${text}' carries credentials; a scan URL may not.`;
  if (!url.hostname) return `'${text}' has no host.`;
  return url;
}

/**
 * Web scans: saved URLs with a web template and a node; each run's URLs come back in batches and,
 * when it completes, become findings in the scan's scope (through the scan results module, in a
 * durable job).
 */
export function webScanKind(
  deps: WebKindDependencies,
): ScanKindDefinition<WebScan, WebScanInput, WebScanWrite, typeof WebScanBody, WebVerify, 'Web'> {
  const { targets, records } = deps;

  /** 422 naming each URL whose host the policy refuses. */
  const assertUrlsAllowed = (urls: string[], policy: TargetPolicy): void => {
    const issues: FieldIssue[] = [];
    urls.forEach((text, i) => {
      const url = parseWebUrl(text);
      if (typeof url === 'string') return;
      const refusal = targets.refusal([{ range: hostOf(url) }], [], policy);
      if (refusal) issues.push({ field: ['urls', String(i)], message: `${text}: ${refusal}` });
    });
    if (issues.length === 0) return;
    const detail =
      issues.length === 1
        ? issues[0]!.message
        : `${issues.length} URLs are refused: ${issues.map((i) => i.message).join(' ')}`;
    throw new AppError(Problems.ScanTargetRefused, detail, {}, {}, issues);
  };

  return {
    kind: 'Web',
    noun: 'web scan',
    auditType: 'web-scan',
    scheduledJob: SCHEDULED_WEB_JOB,
    table: webScanTable,
    http: {
      base: '/webscans',
      tags: ['Web scans'],
      operationName: 'WebScan',
      startPath: 'start',
      schemas: {
        body: WebScanBody,
        scan: WebScanSchema,
      },
      texts: {
        targetRules: URL_RULES,
        nodesServing: 'web scans',
        create: `Saves the scan; it runs when started (\`POST /webscans/{Id}/start\`) or on its schedule. The template defaults to the built-in web template. ${URL_RULES}`,
        delete: {
          summary: 'Delete a web scan and its runs’ results',
          description: 'A scan with a run under way answers 409: stop it first. Its findings stay.',
        },
        stop: 'A queued run stops at once; a running one becomes Stopping, then Stopped. No run under way: 409.',
      },
      latestRun: {
        operationId: 'getLatestWebScanRun',
        summary: 'The latest run of a web scan: each URL’s checks, header score, notes and software',
        description:
          'With the counts of the import its results became (New, Fixed, Reopened …) once the run completed and they were ingested. 404 when the scan never ran.',
        schema: WebRunReportSchema,
      },
      inputOf: webScanInputOf,
      toDto: (s, view) => ({ ...savedScanDtoFields(s, view), Urls: s.urls, ScanGroupId: s.scanGroupId }),
    },

    async check(ctx, input, current) {
      const name = input.name.trim();
      if (name.length === 0) throw invalid('name', 'A scan needs a name.');
      if (name.length > 200) throw invalid('name', 'must have at most 200 characters');
      deps.schedules.check(input.schedule);
      if (input.urls.length === 0) throw invalid('urls', 'A web scan needs at least one URL.');
      if (input.urls.length > MAX_URLS) throw invalid('urls', `A web scan takes at most ${MAX_URLS} URLs.`);
      const urls: string[] = [];
      input.urls.forEach((text, i) => {
        if (text.length > MAX_URL_LENGTH)
          throw invalid(['urls', String(i)], `must have at most ${MAX_URL_LENGTH} characters`);
        const url = parseWebUrl(text);
        if (typeof url === 'string') throw invalid(['urls', String(i)], url);
        if (!urls.includes(url.href)) urls.push(url.href);
      });
      const templateId = input.templateId ?? (await deps.templates.list(ctx, 'Web'))[0]?.id;
      if (!templateId) throw invalid('templateId', 'No web template exists to default to; name one.');
      await checkTemplate(deps.templates, ctx, templateId, 'Web');
      await assertNodeServes(deps.nodes, ctx, input.nodeId, 'Web');
      assertUrlsAllowed(urls, await targets.policy(ctx.organizationId));
      return {
        name,
        urls,
        templateId,
        nodeId: input.nodeId,
        schedule: keptSchedule(input.schedule),
        // A change that names no group keeps the scan's.
        scanGroupId: input.scanGroupId ?? current?.scanGroupId ?? null,
      };
    },

    async order(ctx, scan, verify) {
      const policy = await targets.policy(ctx.organizationId);
      const urls = verify?.urls ?? scan.urls;
      assertUrlsAllowed(urls, policy);
      const template = await deps.templates.find(ctx, scan.templateId);
      if (template?.kind !== 'Web')
        throw AppError.of(Problems.Conflict, `The web template of the scan '${scan.name}' no longer exists.`);
      const spec: WebSpec = { urls, template: template.settings as WebTemplate, policy };
      return {
        spec,
        ...(verify ? { audit: { action: 'verify-started', details: {} } } : {}),
        record: (trx, runId) =>
          records.addRun(ctx.organizationId, scan.id, runId, verify?.findingIds ?? null, deps.clock(), trx),
      };
    },

    acceptBatch(run, items) {
      // Only results for the origins its run named, inside what the run allowed, are kept.
      const spec = run.spec as Partial<WebSpec> | undefined;
      const asked = new Set((spec?.urls ?? []).map((u) => new URL(u).origin));
      return items
        .filter((r) => {
          const url = parseWebUrl(r.url);
          if (typeof url === 'string' || !asked.has(url.origin)) return false;
          return !spec?.policy || targets.refusal([{ range: hostOf(url) }], [], spec.policy) === null;
        })
        .map((r) => ({ key: r.url, columns: { result: JSON.stringify(r) } }));
    },

    /** A completed run's results are ingested by a durable job enqueued here. */
    async runEnded(run, scan, _at, trx) {
      if (run.state !== 'Completed') return;
      await deps.jobs.enqueue(
        WEB_INGEST_JOB,
        { scanId: scan.id, runId: run.id },
        { organizationId: run.organizationId, dedupKey: `web-ingest:${run.id}`, maxAttempts: 3 },
        trx,
      );
    },

    async refusalAtStart(run, spec) {
      const s = spec as Partial<WebSpec> | null;
      if (!s || !Array.isArray(s.urls)) return null;
      const policy = await targets.policy(run.organizationId);
      for (const text of s.urls) {
        const url = parseWebUrl(String(text));
        if (typeof url === 'string') return url;
        const refusal = targets.refusal([{ range: hostOf(url) }], [], policy);
        if (refusal) return `${url.href}: ${refusal}`;
      }
      return null;
    },
  };
}
