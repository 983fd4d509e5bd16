import { type Readable, Transform } from 'node:stream';
import {
  count,
  MAX_NAME_BYTES,
  ParseLimitError,
  type ParseLimits,
  parseLimits,
  settingOf,
} from './parse-limits.js';

/**
 * Guards that read a file's bytes before any parser does and stop it at the first byte beyond a
 * limit (see parse-limits.ts). Each keeps a few counters and never the data, reads a chunk in
 * one tight pass (hundreds of MB/s, far faster than the parsers behind), and knows the line and
 * column of what it refuses. They only count: a file they let through can still be malformed,
 * and the parser behind says so.
 */
export interface ByteGuard {
  /** Checks the next bytes of the file; throws a ParseLimitError at the first one beyond a limit. */
  write(chunk: Uint8Array): void;
}

type Limit = keyof ParseLimits | 'maxNameBytes';

const LF = 0x0a;
const CR = 0x0d;
const TAB = 0x09;
const SPACE = 0x20;
const QUOTE = 0x22;
const APOSTROPHE = 0x27;
const BACKSLASH = 0x5c;
const LESS = 0x3c;
const GREATER = 0x3e;
const SLASH = 0x2f;
const EQUALS = 0x3d;

function isBlank(byte: number): boolean {
  return byte === SPACE || byte === LF || byte === CR || byte === TAB;
}

/**
 * 1-based line and column (in characters: UTF-8 continuation bytes do not count), brought up to
 * date once per chunk rather than byte by byte, which keeps the guards' loops tight.
 */
class Position {
  line = 1;
  column = 0;

  /** Moves over chunk[0, end). */
  advance(chunk: Uint8Array, end: number): void {
    const part = end === chunk.length ? chunk : chunk.subarray(0, end);
    let lastLf = -1;
    for (let k = part.indexOf(LF); k !== -1; k = part.indexOf(LF, k + 1)) {
      this.line += 1;
      lastLf = k;
    }
    if (lastLf !== -1) this.column = 0;
    let column = this.column;
    for (let k = lastLf + 1; k < end; k += 1) if ((part[k]! & 0xc0) !== 0x80) column += 1;
    this.column = column;
  }
}

abstract class BaseGuard implements ByteGuard {
  private readonly at = new Position();

  constructor(protected readonly limits: ParseLimits) {}

  write(chunk: Uint8Array): void {
    const refused = this.scan(chunk);
    if (refused === undefined) {
      this.at.advance(chunk, chunk.length);
      return;
    }
    this.at.advance(chunk, refused.index + 1);
    throw new ParseLimitError(refused.limit, refused.what, this.at.line, this.at.column);
  }

  /** Reads the chunk; answers the index of the first byte beyond a limit, and which, if any. */
  protected abstract scan(chunk: Uint8Array): Refusal | undefined;

  protected beyond(limit: keyof ParseLimits, index: number, what: string): Refusal {
    return { limit, index, what: `${what} ${settingOf(limit)}` };
  }
}

interface Refusal {
  limit: Limit;
  index: number;
  what: string;
}

/**
 * JSON: nesting depth, string and key size, number and literal size, and the count of values.
 * JSON Lines and concatenated documents are read the same way (depth returns to 0 between them).
 */
export class JsonGuard extends BaseGuard {
  private inString = false;
  private escaped = false;
  private depth = 0;
  /** 1 for an object, 0 for an array, by depth: bounded, since depth is. */
  private readonly containers: Uint8Array;
  private expectKey = false;
  private isKey = false;
  private textBytes = 0;
  private tokenBytes = 0;
  private values = 0;

  constructor(limits: ParseLimits = parseLimits()) {
    super(limits);
    this.containers = new Uint8Array(limits.maxDepth + 2);
  }

  protected scan(chunk: Uint8Array): Refusal | undefined {
    const { maxTextBytes, maxDepth, maxElements } = this.limits;
    const containers = this.containers;
    let { inString, escaped, depth, expectKey, textBytes, tokenBytes, values } = this;
    let refusal: Refusal | undefined;
    const n = chunk.length;
    // Where the next backslash is (n: none left), found once per chunk and then as passed.
    let nextBackslash = -1;
    let i = 0;
    for (; i < n; i += 1) {
      if (inString && !escaped) {
        // The plain run of a string up to its next quote or backslash, skipped with indexOf.
        if (nextBackslash < i) {
          nextBackslash = chunk.indexOf(BACKSLASH, i);
          if (nextBackslash === -1) nextBackslash = n;
        }
        const quote = chunk.indexOf(QUOTE, i);
        const stop = Math.min(quote === -1 ? n : quote, nextBackslash);
        if (textBytes + (stop - i) > maxTextBytes) {
          i += maxTextBytes - textBytes;
          refusal = this.beyond(
            'maxTextBytes',
            i,
            `A JSON ${this.isKey ? 'key' : 'string'} longer than ${count(maxTextBytes)} bytes`,
          );
          break;
        }
        textBytes += stop - i;
        i = stop;
        if (i === n) break;
      }
      const byte = chunk[i]!;
      if (inString) {
        if (escaped) escaped = false;
        else if (byte === BACKSLASH) escaped = true;
        else if (byte === QUOTE) {
          inString = false;
          continue;
        }
        textBytes += 1;
        if (textBytes > maxTextBytes) {
          refusal = this.beyond(
            'maxTextBytes',
            i,
            `A JSON ${this.isKey ? 'key' : 'string'} longer than ${count(maxTextBytes)} bytes`,
          );
          break;
        }
        continue;
      }
      if (byte === QUOTE) {
        tokenBytes = 0;
        inString = true;
        textBytes = 0;
        this.isKey = expectKey;
        expectKey = false;
        if (this.isKey) continue;
      } else if (byte === 0x7b || byte === 0x5b) {
        // { or [
        tokenBytes = 0;
        depth += 1;
        if (depth > maxDepth) {
          refusal = this.beyond('maxDepth', i, `JSON nested deeper than ${count(maxDepth)} levels`);
          break;
        }
        containers[depth] = byte === 0x7b ? 1 : 0;
        expectKey = byte === 0x7b;
      } else if (byte === 0x7d || byte === 0x5d) {
        // } or ]
        tokenBytes = 0;
        if (depth > 0) depth -= 1;
        expectKey = false;
        continue;
      } else if (byte === 0x2c) {
        // ,
        tokenBytes = 0;
        expectKey = depth > 0 && containers[depth] === 1;
        continue;
      } else if (byte === 0x3a || isBlank(byte)) {
        tokenBytes = 0;
        if (byte === 0x3a) expectKey = false;
        continue;
      } else {
        // A number or a literal (true, false, null), or bytes that are no JSON at all.
        tokenBytes += 1;
        if (tokenBytes > MAX_NAME_BYTES) {
          refusal = {
            limit: 'maxNameBytes',
            index: i,
            what: `A JSON number or literal longer than ${count(MAX_NAME_BYTES)} bytes`,
          };
          break;
        }
        if (tokenBytes > 1) continue;
      }
      // A value starts here.
      values += 1;
      if (values > maxElements) {
        refusal = this.beyond('maxElements', i, `More than ${count(maxElements)} JSON values in one file`);
        break;
      }
    }
    Object.assign(this, { inString, escaped, depth, expectKey, textBytes, tokenBytes, values });
    return refusal;
  }
}

/** Where the XML guard is: what the next byte belongs to. */
const Xml = {
  Text: 0,
  /** After "<". */
  Open: 1,
  /** In a start tag, outside attribute values. */
  Tag: 2,
  AttributeValue: 3,
  EndTag: 4,
  /** After "<!", until it is known to be a comment, a CDATA section or a declaration. */
  Bang: 5,
  Comment: 6,
  CData: 7,
  /** <!DOCTYPE …> and other declarations, with an internal subset in brackets. */
  Declaration: 8,
  ProcessingInstruction: 9,
} as const;
type XmlState = (typeof Xml)[keyof typeof Xml];

const COMMENT_START = '--';
const CDATA_START = '[CDATA[';
const TEXT_KINDS: Partial<Record<XmlState, string>> = {
  [Xml.Text]: 'A text node',
  [Xml.Comment]: 'A comment',
  [Xml.CData]: 'A CDATA section',
  [Xml.Declaration]: 'A declaration',
  [Xml.ProcessingInstruction]: 'A processing instruction',
};

/**
 * XML: element depth, attributes per element, the size of text nodes, start tags (attributes
 * included), comments, CDATA sections, processing instructions and declarations, the size of
 * names, and the count of elements. Markup characters are ASCII, so bytes are enough.
 */
export class XmlGuard extends BaseGuard {
  private state: XmlState = Xml.Text;
  private depth = 0;
  private elements = 0;
  private attributes = 0;
  private textBytes = 0;
  /** Bytes of the start tag being read, attributes included: saxes holds a tag whole. */
  private tagBytes = 0;
  private nameBytes = 0;
  private quote = 0;
  private previous = 0;
  /** Consecutive "-" (in a comment) or "]" (in a CDATA section) just read. */
  private run = 0;
  private bang = '';
  /** In a declaration: the bracket depth of its internal subset, a comment in it, the last bytes. */
  private brackets = 0;
  private inDeclarationComment = false;
  private recent = '';

  constructor(limits: ParseLimits = parseLimits()) {
    super(limits);
  }

  protected scan(chunk: Uint8Array): Refusal | undefined {
    const maxText = this.limits.maxTextBytes;
    const n = chunk.length;
    for (let i = 0; i < n; i += 1) {
      const state = this.state;
      // The long runs — text and attribute values — are skipped with indexOf.
      if (state === Xml.Text || state === Xml.AttributeValue) {
        const stop = chunk.indexOf(state === Xml.Text ? LESS : this.quote, i);
        const end = stop === -1 ? n : stop;
        if (state === Xml.Text) {
          if (this.textBytes + (end - i) > maxText) return this.tooLong(i + maxText - this.textBytes);
          this.textBytes += end - i;
        } else {
          // An attribute value counts for its start tag, which saxes holds whole.
          if (this.tagBytes + (end - i) > maxText) return this.tagTooLong(i + maxText - this.tagBytes);
          this.tagBytes += end - i;
        }
        i = end;
        if (stop === -1) break;
        this.state = state === Xml.Text ? Xml.Open : Xml.Tag;
        continue;
      }
      const refusal = this.step(chunk[i]!, i);
      if (refusal) return refusal;
    }
    return undefined;
  }

  private tooLong(index: number): Refusal {
    const what = TEXT_KINDS[this.state] ?? 'A text';
    return this.beyond('maxTextBytes', index, `${what} longer than ${count(this.limits.maxTextBytes)} bytes`);
  }

  private tagTooLong(index: number): Refusal {
    const max = this.limits.maxTextBytes;
    return this.beyond('maxTextBytes', index, `An XML start tag longer than ${count(max)} bytes`);
  }

  private text(index: number): Refusal | undefined {
    this.textBytes += 1;
    return this.textBytes > this.limits.maxTextBytes ? this.tooLong(index) : undefined;
  }

  private name(byte: number, index: number): Refusal | undefined {
    if (isBlank(byte)) {
      this.nameBytes = 0;
      return undefined;
    }
    this.nameBytes += 1;
    if (this.nameBytes <= MAX_NAME_BYTES) return undefined;
    return { limit: 'maxNameBytes', index, what: `An XML name longer than ${count(MAX_NAME_BYTES)} bytes` };
  }

  private toText(): undefined {
    this.state = Xml.Text;
    this.textBytes = 0;
    this.previous = 0;
    this.run = 0;
    return undefined;
  }

  private step(byte: number, i: number): Refusal | undefined {
    switch (this.state) {
      case Xml.Open:
        this.textBytes = 0;
        this.nameBytes = 0;
        if (byte === SLASH) this.state = Xml.EndTag;
        else if (byte === 0x3f) this.state = Xml.ProcessingInstruction;
        else if (byte === 0x21) {
          this.state = Xml.Bang;
          this.bang = '';
        } else return this.startTag(byte, i);
        return undefined;
      case Xml.Tag:
        return this.inTag(byte, i);
      case Xml.EndTag:
        if (byte !== GREATER) return this.name(byte, i);
        if (this.depth > 0) this.depth -= 1;
        return this.toText();
      case Xml.Bang:
        return this.decide(byte, i);
      case Xml.Comment:
        if (byte === GREATER && this.run >= 2) return this.toText();
        this.run = byte === 0x2d ? this.run + 1 : 0;
        return this.text(i);
      case Xml.CData:
        if (byte === GREATER && this.run >= 2) return this.toText();
        this.run = byte === 0x5d ? this.run + 1 : 0;
        return this.text(i);
      case Xml.ProcessingInstruction:
        if (byte === GREATER && this.previous === 0x3f) return this.toText();
        this.previous = byte;
        return this.text(i);
      case Xml.Declaration:
        return this.declaration(byte, i);
      default:
        return undefined;
    }
  }

  private startTag(byte: number, i: number): Refusal | undefined {
    const { maxElements, maxDepth } = this.limits;
    this.elements += 1;
    if (this.elements > maxElements)
      return this.beyond('maxElements', i, `More than ${count(maxElements)} XML elements in one file`);
    this.depth += 1;
    if (this.depth > maxDepth)
      return this.beyond('maxDepth', i, `XML nested deeper than ${count(maxDepth)} elements`);
    this.attributes = 0;
    this.tagBytes = 0;
    this.previous = 0;
    this.state = Xml.Tag;
    return this.inTag(byte, i);
  }

  private inTag(byte: number, i: number): Refusal | undefined {
    const previous = this.previous;
    this.previous = byte;
    this.tagBytes += 1;
    if (this.tagBytes > this.limits.maxTextBytes) return this.tagTooLong(i);
    if (byte === QUOTE || byte === APOSTROPHE) {
      this.quote = byte;
      this.textBytes = 0;
      this.nameBytes = 0;
      this.state = Xml.AttributeValue;
      return undefined;
    }
    if (byte === EQUALS) {
      this.nameBytes = 0;
      this.attributes += 1;
      const max = this.limits.maxAttributes;
      return this.attributes > max
        ? this.beyond('maxAttributes', i, `An XML element with more than ${count(max)} attributes`)
        : undefined;
    }
    if (byte === SLASH) {
      this.nameBytes = 0;
      return undefined;
    }
    if (byte !== GREATER) return this.name(byte, i);
    // "/>" closes the element it opened.
    if (previous === SLASH && this.depth > 0) this.depth -= 1;
    return this.toText();
  }

  /** After "<!": a comment, a CDATA section, or a declaration (DOCTYPE…). */
  private decide(byte: number, i: number): Refusal | undefined {
    this.bang += String.fromCharCode(byte);
    if (this.bang === COMMENT_START) {
      this.state = Xml.Comment;
      this.run = 0;
    } else if (this.bang === CDATA_START) {
      this.state = Xml.CData;
      this.run = 0;
    } else if (!COMMENT_START.startsWith(this.bang) && !CDATA_START.startsWith(this.bang)) {
      this.state = Xml.Declaration;
      this.brackets = 0;
      this.quote = 0;
      this.inDeclarationComment = false;
      this.recent = '';
      const read = this.bang;
      for (let k = 0; k < read.length && this.state === Xml.Declaration; k += 1) {
        const refusal = this.declaration(read.charCodeAt(k), i);
        if (refusal) return refusal;
      }
    }
    return undefined;
  }

  /** A declaration ends at the ">" outside quotes, comments and its internal subset's brackets. */
  private declaration(byte: number, i: number): Refusal | undefined {
    const refusal = this.text(i);
    if (refusal) return refusal;
    this.recent = (this.recent + String.fromCharCode(byte)).slice(-4);
    if (this.inDeclarationComment) {
      if (this.recent.endsWith('-->')) this.inDeclarationComment = false;
    } else if (this.quote !== 0) {
      if (byte === this.quote) this.quote = 0;
    } else if (this.recent === '<!--') this.inDeclarationComment = true;
    else if (byte === QUOTE || byte === APOSTROPHE) this.quote = byte;
    else if (byte === 0x5b) this.brackets += 1;
    else if (byte === 0x5d) this.brackets -= 1;
    else if (byte === GREATER && this.brackets <= 0) return this.toText();
    return undefined;
  }
}

/** Text files (CSV, plain text): the length of a line and the count of lines. */
export class LineGuard extends BaseGuard {
  private lineBytes = 0;
  private lines = 0;

  constructor(limits: ParseLimits = parseLimits()) {
    super(limits);
  }

  protected scan(chunk: Uint8Array): Refusal | undefined {
    const { maxTextBytes, maxElements } = this.limits;
    let from = 0;
    for (;;) {
      const lf = chunk.indexOf(LF, from);
      const end = lf === -1 ? chunk.length : lf;
      if (this.lineBytes + (end - from) > maxTextBytes)
        return this.beyond(
          'maxTextBytes',
          from + maxTextBytes - this.lineBytes,
          `A line longer than ${count(maxTextBytes)} bytes`,
        );
      if (lf === -1) {
        this.lineBytes += end - from;
        return undefined;
      }
      this.lineBytes = 0;
      this.lines += 1;
      if (this.lines > maxElements)
        return this.beyond('maxElements', lf, `More than ${count(maxElements)} lines in one file`);
      from = lf + 1;
    }
  }
}

/** Leading white space looked through before a file is taken as text. */
const MAX_SNIFFED_BYTES = 1024 * 1024;
const BOM = [0xef, 0xbb, 0xbf];

type Kind = 'gzip' | 'json' | 'xml' | 'text';

/**
 * Any file: the first significant character says which guard reads it — "{" or "[" JSON, "<"
 * XML, anything else lines of text. A gzip file (1f 8b) passes unread: it is guarded once
 * unpacked. A byte order mark and white space before the first character are passed over,
 * wherever the chunks split them.
 */
export class SniffingGuard implements ByteGuard {
  private guard: ByteGuard | undefined;
  private readonly pending: Uint8Array[] = [];
  private position = 0;
  private bom = 0;
  private gzipStart = false;

  constructor(private readonly limits: ParseLimits = parseLimits()) {}

  write(chunk: Uint8Array): void {
    if (this.guard) {
      this.guard.write(chunk);
      return;
    }
    this.pending.push(chunk);
    let kind: Kind | undefined;
    for (let i = 0; i < chunk.length && kind === undefined; i += 1) kind = this.decide(chunk[i]!);
    if (kind === undefined && this.position <= MAX_SNIFFED_BYTES) return;
    this.guard = this.guardFor(kind ?? 'text');
    // What was read past counts for the line and column of what follows.
    for (const before of this.pending.splice(0)) this.guard.write(before);
  }

  private decide(byte: number): Kind | undefined {
    const at = this.position;
    this.position += 1;
    if (at === 0 && byte === 0x1f) {
      this.gzipStart = true;
      return undefined;
    }
    if (this.gzipStart) return byte === 0x8b ? 'gzip' : 'text';
    if (at < BOM.length && this.bom === at && byte === BOM[at]) {
      this.bom += 1;
      return undefined;
    }
    if (isBlank(byte)) return undefined;
    if (byte === 0x7b || byte === 0x5b) return 'json';
    return byte === LESS ? 'xml' : 'text';
  }

  private guardFor(kind: Kind): ByteGuard {
    switch (kind) {
      case 'gzip':
        return { write: () => {} };
      case 'json':
        return new JsonGuard(this.limits);
      case 'xml':
        return new XmlGuard(this.limits);
      default:
        return new LineGuard(this.limits);
    }
  }
}

/** A Transform that passes bytes on once `guard` has checked them, and fails at the first it refuses. */
export function guardTransform(guard: ByteGuard): Transform {
  return new Transform({
    transform(chunk: Buffer | string, _encoding, done) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      try {
        guard.write(bytes);
      } catch (error) {
        return done(error as Error);
      }
      done(null, bytes);
    },
  });
}

/** `input` through `guard`: the stream fails at the first byte refused, and stopping it stops `input`. */
export function guarded(input: Readable, guard: ByteGuard): Readable {
  const check = guardTransform(guard);
  input.on('error', (error) => check.destroy(error));
  check.on('close', () => input.destroy());
  return input.pipe(check);
}
