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

/**
 * How deep arrays and objects may nest in a request body. Rampart's own bodies nest a few levels;
 * a limit keeps a hostile body (an 80 KB file can nest 40,000 deep) from every recursive walk
 * after the parser: the error locator, validation, the database driver.
 */
export const MAX_JSON_DEPTH = 64;

/** Where a document first nests deeper than `max`, or -1; one pass, strings skipped. */
export function offsetBeyondDepth(text: string, max: number): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > max) return i;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return -1;
}

/** JSON bodies: prototype-poisoning safe, bounded in depth, and a syntax error says where it is. */
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
    // Checked before parsing, broken or not: the error locator itself recurses per level.
    const tooDeep = offsetBeyondDepth(text, MAX_JSON_DEPTH);
    if (tooDeep !== -1) {
      const { line, column } = lineAndColumn(text, tooDeep);
      const message = `Arrays and objects nest deeper than ${MAX_JSON_DEPTH} levels`;
      done(new JsonSyntaxError(message, tooDeep, line, column), undefined);
      return;
    }
    try {
      done(null, secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }));
    } catch (error) {
      done(describeJsonError(text, (error as Error).message), undefined);
    }
  });
}
