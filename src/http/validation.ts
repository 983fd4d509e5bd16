import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

const common: Options = {
  removeAdditional: false,
  useDefaults: true,
  // Every unknown property is named at once; bodies are bounded by bodyLimit and the answer
  // lists at most 20 issues.
  allErrors: true,
  strict: false,
};

function build(coerceTypes: Options['coerceTypes']): Ajv {
  const ajv = new Ajv({ ...common, coerceTypes });
  addFormats.default(ajv);
  return ajv;
}

/**
 * Query strings, paths and headers are text, so their values are coerced to the schema's types.
 * JSON bodies are not: a 0 must never quietly become null, nor "5" become 5.
 */
export function registerValidators(app: FastifyInstance): void {
  const forText = build('array');
  const forBody = build(false);
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? forBody : forText).compile(schema),
  );
}
