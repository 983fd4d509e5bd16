import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Where `npm run build:web` puts the single-page app (the same from src/ and dist/). */
export const WEB_DIR = path.resolve(import.meta.dirname, '../../dist/web');

// The SPA bundles everything it needs; Mantine sets inline style attributes, hence 'unsafe-inline' for styles.
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "font-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'";

/**
 * The first path segment of every page of the web app (web/src/routes.tsx; a test keeps the two
 * in step). Only these, the pages under them and `/` are answered with index.html: any other path
 * (`/healthz`, a scanner's probe, and `/metrics` unless RAMPART_METRICS_TOKEN serves it there:
 * src/http/metrics.ts) is a 404, so that a monitoring probe is never told that something it
 * looks for is there. `/health/live` and `/health/ready` are routes of their own (src/http/health.ts).
 */
export const APP_ROUTES: ReadonlySet<string> = new Set([
  'sign-in',
  'findings',
  'top-risks',
  'vulnerabilities',
  'assets',
  'tickets',
  'imports',
  'discovery',
  'system-scans',
  'web-scans',
  'scan-groups',
  'settings',
  'profile',
  'users',
  'feeds',
  'scan-nodes',
  'reports',
  'notifications',
  'audit-log',
  'installation',
]);

/** Whether a path is a page of the web app, or under one (matched case-insensitively, as routes are). */
export function isAppPath(urlPath: string): boolean {
  const segments = urlPath.split('/').filter((s) => s !== '');
  if (segments.length === 0) return true;
  return APP_ROUTES.has(segments[0]!.toLowerCase());
}

/** Whether a request asks for a page by name (a browser navigating), not for any answer at all. */
export function asksForHtml(request: FastifyRequest): boolean {
  return /\btext\/html\b/i.test(request.headers.accept ?? '');
}

/** Answers with the app's index.html, with this status. */
export type WebAppFallback = (request: FastifyRequest, reply: FastifyReply, status?: number) => FastifyReply;

/**
 * Serves the built web app's files, when it has been built. Returns the fallback that answers
 * client-side routes with index.html, or undefined without a build.
 */
export async function registerWebApp(
  app: FastifyInstance,
  webDir = WEB_DIR,
): Promise<WebAppFallback | undefined> {
  if (!fs.existsSync(path.join(webDir, 'index.html'))) return undefined;
  await app.register(fastifyStatic, {
    root: webDir,
    wildcard: false,
    index: false,
    cacheControl: false,
    setHeaders: (res, filePath) => {
      // Built assets carry a content hash in their names: cache them for good.
      if (filePath.includes(`${path.sep}assets${path.sep}`)) {
        res.setHeader('cache-control', 'public, max-age=31536000, immutable');
      }
    },
  });
  return (_request, reply, status = 200) =>
    reply
      .code(status)
      .header('cache-control', 'no-cache')
      .header('content-security-policy', CSP)
      .header('x-frame-options', 'DENY')
      .type('text/html; charset=utf-8')
      .sendFile('index.html');
}
