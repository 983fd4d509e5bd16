import type { FastifyInstance, preHandlerHookHandler } from 'fastify';
import FindMyWay from 'find-my-way';
import { Problems } from '../../problems/catalogue.js';
import { asksForHtml, isAppPath, type WebAppFallback } from '../web-app.js';
import { sendProblem } from './handlers.js';

/** The API and its documentation: never answered with the app. */
const API_PATH = /^\/+(api|apidoc)(\/|$)/i;

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/**
 * 404 for unknown paths and 405 (with Allow) for known paths asked with another method. Fastify
 * answers both with 404, so a second router that knows every path tells them apart.
 */
export function registerNotFound(
  app: FastifyInstance,
  /** Authentication and the throttle: no route's hooks reach a request no route matched. */
  preHandler: preHandlerHookHandler[],
  webApp?: WebAppFallback,
): void {
  const paths = FindMyWay({ caseSensitive: false, ignoreTrailingSlash: true });
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      try {
        paths.on(method as (typeof METHODS)[number], route.url, () => {});
      } catch {
        // The same path and method registered twice (HEAD for GET): already known.
      }
    }
  });

  app.setNotFoundHandler({ preHandler }, (request, reply) => {
    const path = request.url.split('?', 1)[0] ?? '/';
    if (webApp && (request.method === 'GET' || request.method === 'HEAD') && !API_PATH.test(path)) {
      if (isAppPath(path)) return webApp(request, reply);
      // A browser that follows a stale link gets the app's own "Page not found", still as a 404;
      // every other client (a monitoring probe, a script) gets the problem below.
      if (asksForHtml(request)) return webApp(request, reply, 404);
    }
    const allowed = METHODS.filter((m) => paths.find(m, path) !== null);
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      return sendProblem(
        request,
        reply,
        Problems.MethodNotAllowed,
        `${request.method} is not supported on ${path}; use ${allowed.join(', ')}.`,
      );
    }
    return sendProblem(
      request,
      reply,
      Problems.NotFound,
      `There is no endpoint ${request.method} ${path}. See /apidoc/latest/ for the list of endpoints.`,
    );
  });
}
