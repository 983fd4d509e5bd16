import fastJson, { type Schema } from 'fast-json-stringify';

type Serializer = (data: unknown) => string;
type ExternalSchemas = Record<string, unknown>;

interface RouteSchema {
  schema?: unknown;
}

/**
 * Serializers already built in this process, by what they were built from: the response schema,
 * the shared schemas it may refer to and the options. Every app built in one process (the tests
 * build hundreds) then builds each only once.
 */
const built = new Map<string, Serializer>();

// The shared schemas are keyed by their ids alone: Rampart adds each id from one module constant,
// so one id is one schema in every app of the process.
function keyOf(schema: object, externals: ExternalSchemas, options: object): string {
  return `${JSON.stringify(schema)}\n${Object.keys(externals).sort().join(',')}\n${JSON.stringify(options)}`;
}

function build(schema: Record<string, unknown>, externals: ExternalSchemas, options: object): Serializer {
  // As Fastify's own compiler: a schema that is itself one of the shared ones is not given twice.
  const shared = { ...externals };
  if (typeof schema.$id === 'string') delete shared[schema.$id];
  const key = keyOf(schema, shared, options);
  let serializer = built.get(key);
  if (!serializer) {
    serializer = fastJson(schema as unknown as Schema, {
      ...options,
      schema: shared as Record<string, Schema>,
    }) as Serializer;
    built.set(key, serializer);
  }
  return serializer;
}

/** Serializers handed to Fastify and not built yet, so that a test can build them all. */
const unbuilt = new Set<() => void>();

/**
 * Fastify's `compilersFactory.buildSerializer`, building each response's serializer when the
 * first answer needs it rather than at start. Building all of them (fast-json-stringify, some
 * 600 response schemas) took about 4 s of CPU at every start, most of it for answers a process
 * never gives. `buildUnbuiltSerializers` lets a test build every one, so a schema that cannot be
 * serialized fails a test, not somebody's first request.
 */
export function lazySerializerFactory(externalSchemas?: unknown, options: object = {}) {
  const externals = (externalSchemas ?? {}) as ExternalSchemas;
  return ({ schema }: RouteSchema): Serializer => {
    let serialize: Serializer | undefined;
    const buildIt = () => {
      serialize ??= build(schema as Record<string, unknown>, externals, options);
      unbuilt.delete(buildIt);
    };
    unbuilt.add(buildIt);
    return (data) => {
      if (!serialize) buildIt();
      return serialize!(data);
    };
  };
}

/** Builds every serializer handed out and not built yet; answers how many. */
export function buildUnbuiltSerializers(): number {
  const all = [...unbuilt];
  for (const buildIt of all) buildIt();
  return all.length;
}
