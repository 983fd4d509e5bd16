import type { FastifyInstance } from 'fastify';
import { type ParseError, parse as parseTolerant, printParseErrorCode } from 'jsonc-parser';
import secureJson from 'secure-json-parse';
import { JsonSyntaxError } from './problems/handlers.js';

const MESSAGES: Record<string, string> = {
  InvalidSymbol: 'Unexpected character',
  InvalidNumberFormat: 'Invalid number',
  PropertyNameExpected: 'Expected a property name in double quotes',
  ValueExpected: 'Expected a value',
  ColonExpected: "Expected ':' after the property name",
  CommaExpected: "Expected ',' between values",
  CloseBraceExpected: "Expected '}'",
  CloseBracketExpected: "Expected ']'",
  EndOfFileExpected: 'Unexpected content after the JSON document',
  InvalidCommentToken: 'Comments are not allowed in JSON',
  UnexpectedEndOfComment: 'Comments are not allowed in JSON',
  UnexpectedEndOfString: 'Unterminated string',
  UnexpectedEndOfNumber: 'Unterminated number',
  InvalidUnicode: 'Invalid unicode escape',
  InvalidEscapeCharacter: 'Invalid escape character',
  InvalidCharacter: 'Invalid character in string',
};

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/** Finds where a document that JSON.parse rejected goes wrong (error path only). */
export function describeJsonError(text: string, fallback: string): JsonSyntaxError {
  const errors: ParseError[] = [];
  parseTolerant(text, errors, {
    disallowComments: true,
    allowTrailingComma: false,
    allowEmptyContent: false,
  });
  const first = errors[0];
  // V8 sometimes states the position itself; jsonc-parser is more lenient about a few things.
  const v8Position = /at position (\d+)/.exec(fallback)?.[1];
  const offset = first ? first.offset : v8Position ? Number(v8Position) : text.length;
  const message = first ? (MESSAGES[printParseErrorCode(first.error)] ?? 'Invalid JSON') : fallback;
  const { line, column } = lineAndColumn(text, offset);
  return new JsonSyntaxError(message, offset, line, column);
}

/** JSON bodies: prototype-poisoning safe, and a syntax error says where it is. */
export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string;
    if (text.length === 0) {
      // An empty body with a JSON content type is common from clients that always set the header
      // (the published contract tells them to); treat it as no body.
      done(null, undefined);
      return;
    }
    try {
      done(null, secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }));
    } catch (error) {
      done(describeJsonError(text, (error as Error).message), undefined);
    }
  });
}
