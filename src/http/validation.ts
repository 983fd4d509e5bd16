import { Ajv, type Options, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import type { TSchema } from 'typebox';

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

/** The body compiler of bodyValidatorBy: one per process, like the app's own. */
let bodyAjv: Ajv | null = null;

/**
 * A route's body validator that checks the body against one schema the body itself picks (by a
 * field such as `Kind`), where the route documents a union of them. Checked against the union,
 * a bad body would be told every member's problems, most of them about members it never meant;
 * checked against its own member, it is told only what it got wrong. The errors are Ajv's, so
 * the problem answer reads as for any other route. `pick` must return one of a fixed set of
 * schemas (each is compiled once).
 */
export function bodyValidatorBy(pick: (body: unknown) => TSchema) {
  const compiled = new Map<TSchema, ValidateFunction>();
  const validatorOf = (schema: TSchema): ValidateFunction => {
    let validate = compiled.get(schema);
    if (!validate) {
      bodyAjv ??= build(false);
      validate = bodyAjv.compile(schema);
      compiled.set(schema, validate);
    }
    return validate;
  };
  return ({ httpPart, schema }: { httpPart?: string; schema: object }) => {
    // Only the body is the pick's: path, query and headers keep the app's validators.
    if (httpPart !== 'body') return textAjv().compile(schema);
    const check = (body: unknown) => {
      const validate = validatorOf(pick(body));
      const valid = validate(body);
      check.errors = validate.errors ?? null;
      return valid;
    };
    check.errors = null as ValidateFunction['errors'];
    return check;
  };
}

let textAjvInstance: Ajv | null = null;
function textAjv(): Ajv {
  textAjvInstance ??= build('array');
  return textAjvInstance;
}
