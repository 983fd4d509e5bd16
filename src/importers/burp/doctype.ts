import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';

/**
 * Burp writes every XML export with an internal DTD that only declares elements and attribute
 * lists (`<!ELEMENT issue (…)>`, `<!ATTLIST request base64 (true|false) "false">`). The shared
 * XML reader refuses any declaration, so such a subset — and only such a subset: element and
 * attribute-list declarations and comments, no entity, notation or parameter-entity reference —
 * is blanked out before reading. Blanking keeps every line break and column, so errors still
 * point at the right place. Any other DTD reaches the reader unchanged and is refused there.
 * Nothing is lost: the declarations only describe the layout; a non-validating reader ignores them.
 */

/** The prolog (before the root element) read ahead at most; Burp's is about 1.5 KB. */
const MAX_PROLOG_CHARS = 256 * 1024;

/** The index just after a `<!ELEMENT …>` or `<!ATTLIST …>` declaration, or undefined if unsafe. */
function declarationEnd(text: string, at: number): number | undefined {
  let quote = '';
  for (let i = at + 2; i < text.length; i += 1) {
    const c = text[i]!;
    // Entity and parameter-entity references or nested markup: not a plain declaration.
    if (c === '&' || c === '%' || c === '<') return undefined;
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '>') return i + 1;
  }
  return undefined;
}

/** The index of the `]` closing an internal subset that holds only harmless declarations. */
function harmlessSubsetEnd(text: string, from: number): number | undefined {
  let i = from;
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ' || c === '\t' || c === '\r' || c === '\n') i += 1;
    else if (c === ']') return i;
    else if (text.startsWith('<!--', i)) {
      const end = text.indexOf('-->', i + 4);
      if (end === -1) return undefined;
      i = end + 3;
    } else if (text.startsWith('<!ELEMENT', i) || text.startsWith('<!ATTLIST', i)) {
      const end = declarationEnd(text, i);
      if (end === undefined) return undefined;
      i = end;
    } else return undefined;
  }
  return undefined;
}

/** `head` with a harmless internal DTD subset replaced by spaces (line breaks kept). */
export function blankHarmlessDtd(head: string): string {
  const doctype = /<!DOCTYPE\s+[A-Za-z_][\w:.-]*\s*\[/.exec(head);
  if (!doctype) return head;
  const open = doctype.index + doctype[0].length - 1;
  const close = harmlessSubsetEnd(head, open + 1);
  if (close === undefined || !/^\s*>/.test(head.slice(close + 1, close + 64))) return head;
  const blank = head.slice(open, close + 1).replace(/[^\r\n]/g, ' ');
  return head.slice(0, open) + blank + head.slice(close + 1);
}

/** The stream as text, its prolog passed through blankHarmlessDtd. */
export function withoutHarmlessDtd(source: Readable): Readable {
  async function* text(): AsyncGenerator<string> {
    const decoder = new StringDecoder('utf8');
    const iterator = source[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
    const decode = (chunk: Buffer | string) => (typeof chunk === 'string' ? chunk : decoder.write(chunk));
    try {
      let head = '';
      // Read up to the root element's start tag (the first `<` followed by a name).
      while (head.length < MAX_PROLOG_CHARS && !/<[A-Za-z_]/.test(head)) {
        const next = await iterator.next();
        if (next.done) break;
        head += decode(next.value);
      }
      if (head) yield blankHarmlessDtd(head);
      for (;;) {
        const next = await iterator.next();
        if (next.done) break;
        yield decode(next.value);
      }
      const rest = decoder.end();
      if (rest) yield rest;
    } finally {
      await iterator.return?.();
    }
  }
  return Readable.from(text());
}
