// Rampart's six answer headers as fixed values, for the bare servers of bench:auth and bench:auth-cpu.
import type { FastifyReply } from 'fastify';

const REQUEST_ID = '0b6f1c2e-4d3a-4f5b-8c7d-9e0a1b2c3d4e';
const LIMIT = 1_000_000_000;

/**
 * The headers Rampart's authentication check answers with (request id, nosniff, referrer policy,
 * three RateLimit fields), with fixed values of the lengths they have under bench:auth: what
 * those headers alone cost the server, the kernel and the client.
 */
export function setFixedHeaders(reply: FastifyReply): void {
  reply
    .header('x-request-id', REQUEST_ID)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('ratelimit-limit', LIMIT)
    .header('ratelimit-remaining', LIMIT - 1)
    .header('ratelimit-reset', 60);
}
