import type { Readable } from 'node:stream';
import { getFunctionList, getManyValues, isMany, none } from 'stream-chain/defs.js';
import { parser } from 'stream-json';
import Assembler from 'stream-json/assembler.js';
import verifier from 'stream-json/utils/verifier.js';
import { guarded, JsonGuard } from './byte-guards.js';
import { JsonPositions } from './json-positions.js';
import type { ParseLimits } from './parse-limits.js';
import { ReportError } from './report-error.js';
import { wellFormed } from './well-formed.js';

export type JsonPath = readonly (string | number)[];

/** 1-based line and column (in characters). */
export interface JsonPosition {
  line: number;
  column: number;
}

/** What a value is, known as soon as it starts. */
export type JsonKind = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null';

export interface JsonValuesOptions {
  /** Strings (and keys) longer than this are cut while they stream in; default 1 MiB. */
  maxStringChars?: number;
  /** Called once per cut string. */
  onTruncated?: (path: JsonPath) => void;
  /** JSON Lines / concatenated JSON values instead of one document. */
  jsonStreaming?: boolean;
  /** Depth, string size and value count the file may reach; default: the configured parseLimits(). */
  limits?: ParseLimits;
  /**
   * Told of every value as it starts, outside picked values, before `pick` is asked: a reader
   * checks the file's shape here (and throws to stop) without assembling anything. `at` answers
   * where the value starts (for the message), while the value is the one being told of.
   */
  onValue?: (path: JsonPath, kind: JsonKind, at: () => JsonPosition | undefined) => void;
  /** A picked value holding more values than this fails the report; default 1,000,000. */
  maxRecordValues?: number;
  /** A picked value holding more characters (strings as cut, and keys) fails the report; default 64 Mi. */
  maxRecordChars?: number;
}

/**
 * One picked value (a result, a record) is held whole while it is assembled: these bound it, so
 * that a small gzipped file cannot fill memory with one record of a million references. Real
 * records hold a few thousand values and well under a megabyte of text.
 */
const MAX_RECORD_VALUES = 1_000_000;
const MAX_RECORD_CHARS = 64 * 1024 * 1024;

const KINDS: Record<string, JsonKind> = {
  startObject: 'object',
  startArray: 'array',
  stringValue: 'string',
  numberValue: 'number',
  trueValue: 'boolean',
  falseValue: 'boolean',
  nullValue: 'null',
};

const MAX_KEY_CHARS = 1024;

interface Token {
  name: string;
  value?: unknown;
}

/**
 * Streams the values of a JSON document whose path `pick` accepts, each assembled into a plain
 * object, in document order, with its path. Everything else is skipped token by token, so a
 * report of any size is read with the memory of its largest picked value. Pick scalars before
 * the big arrays that follow them (e.g. Trivy's Target before its Vulnerabilities) to carry
 * context.
 *
 * The bytes pass a JsonGuard before the tokenizer sees them, so a hostile file (nested forty
 * million deep, a string of a gigabyte) stops at the limit it breaks, with its line and column,
 * before anything is built from it. Strings are made storable (see wellFormed: a NUL is
 * dropped, a lone UTF-16 surrogate becomes U+FFFD).
 */
export async function* jsonValues(
  input: Readable,
  pick: (path: JsonPath) => boolean,
  options: JsonValuesOptions = {},
): AsyncGenerator<{ path: JsonPath; value: unknown }> {
  const maxChars = options.maxStringChars ?? 1024 * 1024;
  const tokens = tokenizer({
    packKeys: false,
    packStrings: false,
    packNumbers: true,
    streamNumbers: false,
    jsonStreaming: options.jsonStreaming ?? false,
  });
  const guard = new JsonGuard(options.limits);
  // Only a shape check asks where a value is: the bytes are watched for it alone.
  const positions = options.onValue ? new JsonPositions() : undefined;

  const path: (string | number)[] = [];
  const containers: ('object' | 'array')[] = [];
  let assembler: Assembler | null = null;
  let assembledPath: JsonPath = [];
  let text: string[] | null = null;
  let textLength = 0;
  let textCap = maxChars;
  let truncated = false;
  let shapeError: unknown;
  const maxRecordValues = options.maxRecordValues ?? MAX_RECORD_VALUES;
  const maxRecordChars = options.maxRecordChars ?? MAX_RECORD_CHARS;
  let recordValues = 0;
  let recordChars = 0;
  // Values started so far (as JsonPositions counts them), for `at`.
  let valueCount = 0;
  const at = () => positions?.of(valueCount);
  const tooLarge = (what: string) =>
    new ReportError(
      `One record of the file (at ${pathText(assembledPath) || 'its top'}) holds more than ${what}; a record this large is refused.`,
    );

  // After a value ends, the next value of an array has the next index.
  const nextIndex = () => {
    if (containers[containers.length - 1] === 'array') (path[path.length - 1] as number) += 1;
  };

  try {
    for await (const chunk of chunksOf(input, guard, positions, tokens))
      for (const raw of chunk) {
        // The parser reuses token objects: never change one, make a new one.
        let token = raw;
        // Strings and keys arrive in chunks: join them up to the cap.
        switch (token.name) {
          case 'startString':
          case 'startKey':
            text = [];
            textLength = 0;
            textCap = raw.name === 'startKey' ? MAX_KEY_CHARS : maxChars;
            truncated = false;
            continue;
          case 'stringChunk':
            if (text && !truncated) {
              const chunk = token.value as string;
              if (textLength + chunk.length > textCap) {
                text.push(chunk.slice(0, textCap - textLength));
                truncated = true;
                options.onTruncated?.([...path]);
              } else text.push(chunk);
              textLength += chunk.length;
            }
            continue;
          case 'endString':
            token = { name: 'stringValue', value: wellFormed((text ?? []).join('')) };
            text = null;
            break;
          case 'endKey':
            token = { name: 'keyValue', value: wellFormed((text ?? []).join('')) };
            text = null;
            break;
        }

        if (assembler) {
          if (token.name === 'stringValue' || token.name === 'keyValue')
            recordChars += (token.value as string).length;
          if (token.name !== 'keyValue' && !token.name.startsWith('end')) {
            recordValues += 1;
            valueCount += 1;
          }
          if (recordValues > maxRecordValues)
            throw tooLarge(`${maxRecordValues.toLocaleString('en')} values`);
          if (recordChars > maxRecordChars)
            throw tooLarge(`${maxRecordChars.toLocaleString('en')} characters of text`);
          assembler.consume(token as never);
          if (assembler.done) {
            yield { path: assembledPath, value: assembler.current };
            assembler = null;
            nextIndex();
          }
          continue;
        }

        switch (token.name) {
          case 'keyValue':
            path[path.length - 1] = token.value as string;
            continue;
          case 'endObject':
          case 'endArray':
            containers.pop();
            path.pop();
            nextIndex();
            continue;
        }

        // A value starts at `path`.
        valueCount += 1;
        if (options.onValue) {
          try {
            options.onValue(path, KINDS[token.name] ?? 'null', at);
          } catch (error) {
            shapeError = error;
            throw error;
          }
        }
        if (pick(path)) {
          assembler = new Assembler();
          assembledPath = [...path];
          recordValues = 1;
          recordChars = token.name === 'stringValue' ? (token.value as string).length : 0;
          assembler.consume(token as never);
          if (assembler.done) {
            yield { path: assembledPath, value: assembler.current };
            assembler = null;
            nextIndex();
          }
          continue;
        }
        if (token.name === 'startObject') {
          containers.push('object');
          path.push('');
        } else if (token.name === 'startArray') {
          containers.push('array');
          path.push(0);
        } else nextIndex();
      }
  } catch (error) {
    if (error instanceof ReportError || error === shapeError) throw error;
    throw new ReportError(`Not valid JSON: ${(error as Error).message}`);
  } finally {
    input.destroy();
  }
}

/**
 * The file's tokens, a chunk's worth at a time: each chunk of bytes passes the guard, then
 * stream-json's tokenizer, called as the plain functions its stream is made of (UTF-8 decoding,
 * then tokenizing). Its stream handed on one token at a time through an async iterator, a
 * promise for each of the tens of millions of tokens of a large report (bench:import: most of a
 * Trivy import's parse).
 */
async function* chunksOf(
  input: Readable,
  guard: JsonGuard,
  positions: JsonPositions | undefined,
  tokens: Tokenizer,
): AsyncGenerator<readonly Token[]> {
  for await (const chunk of input) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : (chunk as Buffer);
    guard.write(bytes);
    positions?.write(bytes);
    yield tokens.write(bytes);
  }
  yield tokens.end();
}

interface Tokenizer {
  write(bytes: Buffer): readonly Token[];
  /** The tokens the end of the file completes; throws when the document is unfinished. */
  end(): readonly Token[];
}

type Step = (value: unknown) => unknown;

/** stream-json's parser without its stream: the functions `parser.asStream` chains. */
function tokenizer(options: Parameters<typeof parser>[0]): Tokenizer {
  const [decode, tokenize] = getFunctionList(parser(options) as never) as Step[];
  if (!decode || !tokenize)
    throw new Error('stream-json: its parser is no longer a decoder and a tokenizer.');
  const tokensOf = (out: unknown): readonly Token[] =>
    out === none ? [] : isMany(out) ? (getManyValues(out) as Token[]) : [out as Token];
  return {
    write: (bytes) => tokensOf(tokenize(decode(bytes))),
    end: () => {
      const rest = decode(none);
      return [...tokensOf(rest === none ? none : tokenize(rest)), ...tokensOf(tokenize(none))];
    },
  };
}

/** The path as dotted text, e.g. "Results.0.Vulnerabilities.12", for regex tests. */
export function pathText(path: JsonPath): string {
  return path.join('.');
}

/** "vulnerabilities[3].cve": a path as people write it. */
export function pathName(path: JsonPath): string {
  return path
    .map((step, i) => (typeof step === 'number' ? `[${step}]` : i === 0 ? step : `.${step}`))
    .join('');
}

/**
 * Where a JSON file stops being JSON (1-based line and column), found by a second, validating
 * read of the file; undefined when it is valid. The streaming parser knows that a document is
 * broken but not where, so a failed import asks this for the position it reports.
 */
export async function locateJsonError(
  open: () => Readable,
  jsonStreaming = false,
): Promise<{ line: number; column: number; message: string } | undefined> {
  const check = verifier.asStream({ jsonStreaming });
  // Guarded too: the verifier keeps a stack as deep as the file nests.
  const input = guarded(open(), new JsonGuard());
  input.on('error', (error) => check.destroy(error));
  input.pipe(check);
  try {
    for await (const _ of check) {
      // The verifier yields nothing; it throws at the first error.
    }
    return undefined;
  } catch (error) {
    const e = error as Error & { line?: number; pos?: number };
    if (e.line === undefined || error instanceof ReportError) return undefined;
    return { line: e.line, column: e.pos ?? 0, message: e.message };
  }
}
