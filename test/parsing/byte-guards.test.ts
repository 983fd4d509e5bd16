import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import {
  type ByteGuard,
  JsonGuard,
  LineGuard,
  SniffingGuard,
  XmlGuard,
} from '../../src/parsing/byte-guards.js';
import { jsonValues } from '../../src/parsing/json.js';
import { DEFAULT_PARSE_LIMITS, ParseLimitError, type ParseLimits } from '../../src/parsing/parse-limits.js';
import { wellFormed } from '../../src/parsing/well-formed.js';
import { xmlElements } from '../../src/parsing/xml.js';
import { FIXTURES } from '../importers/helpers.js';

const limits = (over: Partial<ParseLimits>): ParseLimits => ({ ...DEFAULT_PARSE_LIMITS, ...over });

/** Feeds `text` to `guard` whole, or byte by byte (chunk boundaries anywhere must not matter). */
function feed(guard: ByteGuard, text: string | Buffer, byteByByte = false): void {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  if (!byteByByte) guard.write(bytes);
  else for (let i = 0; i < bytes.length; i += 1) guard.write(bytes.subarray(i, i + 1));
}

/** The ParseLimitError `text` raises, fed whole and byte by byte (both must agree), or undefined. */
function refusal(make: () => ByteGuard, text: string | Buffer): ParseLimitError | undefined {
  const outcomes = [false, true].map((byteByByte) => {
    try {
      feed(make(), text, byteByByte);
      return undefined;
    } catch (error) {
      expect(error).toBeInstanceOf(ParseLimitError);
      return error as ParseLimitError;
    }
  });
  expect(outcomes[1]?.message).toBe(outcomes[0]?.message);
  return outcomes[0];
}

describe('JsonGuard', () => {
  const json = (over: Partial<ParseLimits>) => () => new JsonGuard(limits(over));

  it('counts nesting outside strings only, and names the level, the setting and the place', () => {
    const text = '{"a": "[[[[{{{{", "b": [1, 2, {"c": "\\"]]]]"}]}';
    expect(refusal(json({ maxDepth: 3 }), text)).toBeUndefined();
    const error = refusal(json({ maxDepth: 2 }), text);
    expect(error?.message).toBe(
      'JSON nested deeper than 2 levels (RAMPART_PARSE_MAX_DEPTH) (line 1, column 31)',
    );
    expect(error).toMatchObject({ limit: 'maxDepth', line: 1, column: 31 });
  });

  it('reads JSON Lines as documents one after another', () => {
    const lines = '{"a": [1]}\n'.repeat(100);
    expect(refusal(json({ maxDepth: 2 }), lines)).toBeUndefined();
    expect(refusal(json({ maxDepth: 1 }), lines)?.message).toMatch(/\(line 1, column 7\)$/);
  });

  it('bounds strings and keys, escapes included, at exactly the limit', () => {
    expect(refusal(json({ maxTextBytes: 6 }), '["abc\\"d"]')).toBeUndefined();
    expect(refusal(json({ maxTextBytes: 5 }), '["abc\\"d"]')?.message).toBe(
      'A JSON string longer than 5 bytes (RAMPART_PARSE_MAX_TEXT_BYTES) (line 1, column 8)',
    );
    expect(refusal(json({ maxTextBytes: 5 }), '{"abcdef": 1}')?.message).toMatch(
      /^A JSON key longer than 5 bytes/,
    );
    expect(refusal(json({ maxTextBytes: 5 }), '{"abc": "x", "b": {"abcdef": 1}}')?.message).toMatch(
      /^A JSON key longer/,
    );
  });

  it('bounds numbers and literals to 4 KiB, and counts values', () => {
    expect(refusal(json({}), `[${'1'.repeat(4096)}]`)).toBeUndefined();
    expect(refusal(json({}), `[${'1'.repeat(4097)}]`)?.limit).toBe('maxNameBytes');
    // [ , 1, "a", {…}, true, null, and the object's value 2: 7 values; keys are not values.
    const seven = '[1, "a", {"k": 2}, true, null]';
    expect(refusal(json({ maxElements: 7 }), seven)).toBeUndefined();
    expect(refusal(json({ maxElements: 6 }), seven)?.message).toBe(
      'More than 6 JSON values in one file (RAMPART_PARSE_MAX_ELEMENTS) (line 1, column 26)',
    );
  });

  it('gives columns in characters and lines after line breaks', () => {
    const text = '{\n  "é€😀": [[[[';
    // é, € and 😀 are one character each, whatever their bytes.
    expect(refusal(json({ maxDepth: 3 }), text)).toMatchObject({ line: 2, column: 12 });
  });
});

describe('XmlGuard', () => {
  const xml = (over: Partial<ParseLimits>) => () => new XmlGuard(limits(over));

  it('is not misled by markup in a DOCTYPE subset, comments, CDATA, attribute values or instructions', () => {
    const text = `<?xml version="1.0"?>
<!DOCTYPE issues [
<!ELEMENT issues (issue*)>
<!-- don't > read [ this -->
<!ATTLIST issues burpVersion CDATA "a>b]">
]>
<issues burpVersion="1 > 0 />" note='<?'>
  <!-- <issue><issue><issue> -->
  <issue><request base64="true"><![CDATA[<a><b><c>]]></request></issue>
  <empty/><empty a="1" />
  <?pi <a><b> ?>
</issues>`;
    expect(refusal(xml({ maxDepth: 3 }), text)).toBeUndefined();
    expect(refusal(xml({ maxDepth: 2 }), text)).toMatchObject({ limit: 'maxDepth', line: 9, column: 11 });
    expect(refusal(xml({ maxElements: 5 }), text)).toBeUndefined();
    expect(refusal(xml({ maxElements: 4 }), text)?.message).toMatch(
      /^More than 4 XML elements in one file \(RAMPART_PARSE_MAX_ELEMENTS\) \(line 10, column 12\)$/,
    );
  });

  it('counts the attributes of one element and stops at the one beyond the limit', () => {
    const tag = (n: number) =>
      `<r${Array.from({ length: n }, (_, i) => ` a${i}="x>y"`).join('')}/><s b="1"/>`;
    expect(refusal(xml({ maxAttributes: 3 }), `<root>${tag(3)}${tag(3)}</root>`)).toBeUndefined();
    const error = refusal(xml({ maxAttributes: 3 }), `<root>${tag(4)}</root>`);
    expect(error?.message).toBe(
      'An XML element with more than 3 attributes (RAMPART_PARSE_MAX_ATTRIBUTES) (line 1, column 39)',
    );
  });

  it('bounds text nodes, start tags with their attributes, comments and CDATA sections', () => {
    const max = (maxTextBytes: number) => xml({ maxTextBytes });
    expect(refusal(max(8), '<a>12345678</a>')).toBeUndefined();
    expect(refusal(max(8), '<a>12&amp;456</a>')?.message).toBe(
      'A text node longer than 8 bytes (RAMPART_PARSE_MAX_TEXT_BYTES) (line 1, column 12)',
    );
    // saxes holds a start tag whole: its attributes together are bounded.
    expect(refusal(max(16), '<a b="12345678" c="1234"/>')?.message).toBe(
      'An XML start tag longer than 16 bytes (RAMPART_PARSE_MAX_TEXT_BYTES) (line 1, column 19)',
    );
    expect(refusal(max(8), '<a b="123456789"/>')?.message).toMatch(/^An XML start tag longer than 8 bytes/);
    expect(refusal(max(8), '<a><!-- 12345678 --></a>')?.message).toMatch(/^A comment longer than 8 bytes/);
    expect(refusal(max(8), '<a><![CDATA[123456789]]></a>')?.message).toMatch(/^A CDATA section longer/);
    expect(refusal(max(8), '<!DOCTYPE a [ <!ELEMENT a ANY> ]><a/>')?.message).toMatch(
      /^A declaration longer/,
    );
  });

  it('bounds names to 4 KiB', () => {
    expect(refusal(xml({}), `<${'a'.repeat(4096)}/>`)).toBeUndefined();
    expect(refusal(xml({}), `<${'a'.repeat(4097)}/>`)?.message).toMatch(
      /^An XML name longer than 4,096 bytes/,
    );
  });
});

describe('LineGuard and SniffingGuard', () => {
  it('bounds the length and count of lines', () => {
    const lines = () => new LineGuard(limits({ maxTextBytes: 4, maxElements: 3 }));
    expect(refusal(lines, 'abcd\nefgh\nijkl\n')).toBeUndefined();
    expect(refusal(lines, 'abcd\nefghi\n')?.message).toBe(
      'A line longer than 4 bytes (RAMPART_PARSE_MAX_TEXT_BYTES) (line 2, column 5)',
    );
    expect(refusal(lines, 'a\nb\nc\nd\n')?.message).toMatch(/^More than 3 lines in one file/);
  });

  it('tells JSON, XML and text apart by the first significant character, and lets gzip pass', () => {
    const sniff = () => new SniffingGuard(limits({ maxDepth: 2, maxTextBytes: 64 }));
    expect(refusal(sniff, '\uFEFF \n\t[[[1]]]')).toMatchObject({ limit: 'maxDepth', line: 2, column: 4 });
    expect(refusal(sniff, '  <a><b><c/></b></a>')).toMatchObject({ limit: 'maxDepth' });
    expect(refusal(sniff, `id,name\n1,${'x'.repeat(100)}\n`)).toMatchObject({
      limit: 'maxTextBytes',
      line: 2,
    });
    expect(refusal(sniff, gzipSync('[[[[[[[[]]]]]]]]'))).toBeUndefined();
  });

  it('lets every real sample report and feed file through at the default limits', () => {
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const path = join(dir, name);
        return statSync(path).isDirectory() ? files(path) : [path];
      });
    const samples = [...files(FIXTURES), ...files(join(FIXTURES, '..', '..', 'knowledge-base'))];
    expect(samples.length).toBeGreaterThan(200);
    for (const path of samples) {
      let bytes = readFileSync(path);
      if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = gunzipSync(bytes);
      const guard = new SniffingGuard(DEFAULT_PARSE_LIMITS);
      expect(() => {
        for (let i = 0; i < bytes.length; i += 65536) guard.write(bytes.subarray(i, i + 65536));
      }, path).not.toThrow();
    }
  });
});

describe('the readers apply the guards', () => {
  const drain = async (values: AsyncIterable<unknown>) => {
    const out: unknown[] = [];
    for await (const value of values) out.push(value);
    return out;
  };

  it('jsonValues stops at the limit before the tokenizer builds anything, and makes strings storable', async () => {
    const deep = Readable.from([Buffer.from(`{"a": ${'['.repeat(100_000)}`)]);
    await expect(drain(jsonValues(deep, () => true, { limits: limits({ maxDepth: 10 }) }))).rejects.toThrow(
      'JSON nested deeper than 10 levels (RAMPART_PARSE_MAX_DEPTH) (line 1, column 16)',
    );
    const text = Readable.from([Buffer.from('{"a": "x\\ud800y\\u0000z", "b": "\\ud83d\\ude00"}')]);
    expect(await drain(jsonValues(text, (path) => path.length === 1))).toEqual([
      { path: ['a'], value: 'x\ufffdyz' },
      { path: ['b'], value: '\ud83d\ude00' },
    ]);
  });

  it('jsonValues refuses one picked record too large to hold', async () => {
    const many = () => Readable.from([Buffer.from(`{"Results": [{"Refs": [${'"abcd",'.repeat(20)}"x"]}]}`)]);
    const pickResult = (path: readonly (string | number)[]) => path.length === 2;
    await expect(drain(jsonValues(many(), pickResult, { maxRecordValues: 10 }))).rejects.toThrow(
      'One record of the file (at Results.0) holds more than 10 values; a record this large is refused.',
    );
    await expect(drain(jsonValues(many(), pickResult, { maxRecordChars: 50 }))).rejects.toThrow(
      'One record of the file (at Results.0) holds more than 50 characters of text; a record this large is refused.',
    );
    // The object, its array and 21 strings; "Refs" and 80 + 1 characters.
    const fits = jsonValues(many(), pickResult, { maxRecordValues: 23, maxRecordChars: 85 });
    expect(await drain(fits)).toHaveLength(1);
  });

  it('xmlElements refuses one picked element too large to hold, counting the ancestors it keeps', async () => {
    const xml = () =>
      Readable.from([
        Buffer.from(`<r name="${'n'.repeat(20)}"><e a="12345">${'<c>abcdefghij</c>'.repeat(3)}</e></r>`),
      ]);
    const pickE = (name: string) => name === 'e';
    // r's attributes 24, e's 6, the texts 30: 60 characters held at most.
    expect(await drain(xmlElements(xml(), pickE, { maxHeldChars: 60 }))).toHaveLength(1);
    await expect(drain(xmlElements(xml(), pickE, { maxHeldChars: 59 }))).rejects.toThrow(
      /^An <e> element holds more than 59 characters of attributes and text; an element this large is refused\. \(line 1, column \d+\)$/,
    );
  });

  it('xmlElements stops at the attribute limit before saxes collects the attributes', async () => {
    const xml = Readable.from([Buffer.from(`<r><e${' a="1"'.repeat(10)}/></r>`)]);
    await expect(
      drain(xmlElements(xml, (name) => name === 'e', { limits: limits({ maxAttributes: 2 }) })),
    ).rejects.toThrow(
      'An XML element with more than 2 attributes (RAMPART_PARSE_MAX_ATTRIBUTES) (line 1, column 20)',
    );
  });

  it('wellFormed keeps pairs and replaces only what PostgreSQL cannot store', () => {
    expect(wellFormed('plain é 😀')).toBe('plain é 😀');
    expect(wellFormed('\ud800\udc00\ud800x\udc00\u0000')).toBe('\ud800\udc00\ufffdx\ufffd');
  });
});

describe('parse limit settings', () => {
  it('reads RAMPART_PARSE_MAX_* and refuses values out of range', () => {
    const config = loadConfig({
      RAMPART_PARSE_MAX_DEPTH: '128',
      RAMPART_PARSE_MAX_ATTRIBUTES: '50',
      RAMPART_PARSE_MAX_TEXT_BYTES: '1048576',
      RAMPART_PARSE_MAX_ELEMENTS: '1000',
    });
    expect(config).toMatchObject({
      parseMaxDepth: 128,
      parseMaxAttributes: 50,
      parseMaxTextBytes: 1048576,
      parseMaxElements: 1000,
    });
    expect(loadConfig({})).toMatchObject({
      parseMaxDepth: 64,
      parseMaxAttributes: 1000,
      parseMaxTextBytes: 16 * 1024 * 1024,
      parseMaxElements: 50_000_000,
    });
    expect(() => loadConfig({ RAMPART_PARSE_MAX_DEPTH: '0' })).toThrow(/RAMPART_PARSE_MAX_DEPTH/);
    expect(() => loadConfig({ RAMPART_PARSE_MAX_TEXT_BYTES: String(2 ** 30) })).toThrow(
      /RAMPART_PARSE_MAX_TEXT_BYTES/,
    );
    expect(() => loadConfig({ RAMPART_PARSE_MAX_ELEMENTS: 'many' })).toThrow(/RAMPART_PARSE_MAX_ELEMENTS/);
  });
});
