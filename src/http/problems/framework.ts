import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { Problems, type ProblemType, problemTypeUri } from '../../problems/catalogue.js';
import { type problemBody, sendProblem } from './handlers.js';

/** The longest path parameter the router matches (find-my-way's maxParamLength). */
export const MAX_PARAM_LENGTH = 100;

/**
 * Errors Fastify meets before a route is found, answered in Fastify's own JSON unless handled
 * here: a path that cannot be percent-decoded, a path parameter over the router's limit.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id).header('x-content-type-options', 'nosniff');
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      sendProblem(
        request,
        reply,
        Problems.MalformedRequest,
        'The path holds an invalid percent-encoding: each % must be followed by two hexadecimal digits, ' +
          'and the decoded bytes must be UTF-8.',
      );
      return;
    case 'FST_ERR_MAX_PARAM_LENGTH':
      sendProblem(
        request,
        reply,
        Problems.UriTooLong,
        `A path parameter is longer than ${MAX_PARAM_LENGTH} characters; no id or name in a Rampart path is.`,
      );
      return;
    default:
      request.log.error({ err: error }, 'framework error');
      sendProblem(
        request,
        reply,
        Problems.Internal,
        `An unexpected error occurred. Quote correlation id ${request.id} when reporting it.`,
        { correlationId: request.id },
      );
  }
}

/** The request line's path, when the bytes the parser choked on still hold it. */
function pathOf(rawPacket: unknown): string {
  if (!Buffer.isBuffer(rawPacket)) return '/';
  const line = rawPacket.subarray(0, 2048).toString('latin1').split('\r\n', 1)[0] ?? '';
  const target = /^[A-Z]+ (\/[^\s?#]*)/.exec(line)?.[1];
  return target && target.length <= 1024 ? target : '/';
}

function whatWentWrong(error: NodeJS.ErrnoException): { problem: ProblemType; detail: string } {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        problem: Problems.HeadersTooLarge,
        detail: `The request line and headers exceed ${http.maxHeaderSize} bytes.`,
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { problem: Problems.RequestTimeout, detail: 'The request did not arrive completely in time.' };
    default:
      return {
        problem: Problems.MalformedRequest,
        detail: `The HTTP request cannot be read (${error.code ?? 'parse error'}): check the request line and that header names and values hold only characters HTTP allows.`,
      };
  }
}

/**
 * Requests Node's HTTP parser refuses never reach Fastify (oversized headers, bytes that are not
 * HTTP): the answer is written straight to the socket, as a problem document like any other.
 */
export function clientErrorHandler(
  error: NodeJS.ErrnoException & { rawPacket?: unknown },
  socket: Duplex,
): void {
  // A reset connection has no one left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { problem, detail } = whatWentWrong(error);
  const body = JSON.stringify({
    type: problemTypeUri(problem),
    title: problem.title,
    status: problem.status,
    detail,
    instance: pathOf(error.rawPacket),
  } satisfies ReturnType<typeof problemBody>);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${problem.status} ${http.STATUS_CODES[problem.status]}\r\n` +
        'Content-Type: application/problem+json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n' +
        body,
    );
  }
  socket.destroy(error);
}
