import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from 'fastify';
import type { ScanNode } from '../modules/scannodes/types.js';
import type { Access, Principal } from './access.js';
import type { Channel } from './channel-names.js';
import type { ResolvedDeprecation } from './deprecations.js';

export type TypedApp = FastifyInstance<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
    channel?: Channel;
    deprecation?: ResolvedDeprecation;
  }
  interface FastifyRequest {
    auth: Principal | null;
    /** The scan node of a node-protocol request, authenticated by its key. */
    scanNode: ScanNode | null;
  }
}
