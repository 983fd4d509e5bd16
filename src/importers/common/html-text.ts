/**
 * Scanner descriptions (Burp, ZAP) are HTML fragments. These turn them into plain text with a
 * single forward scan: no regular expression ever sees a tag, so hostile markup cannot make it
 * backtrack, and nothing is rendered or fetched.
 */

/** Tags that stand apart from the text around them by a blank line. */
const PARAGRAPH_TAGS = new Set([
  'address',
  'article',
  'blockquote',
  'div',
  'dl',
  'footer',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'ol',
  'p',
  'pre',
  'section',
  'table',
  'ul',
]);

/** Tags that start a new line. */
const LINE_TAGS = new Set(['br', 'dd', 'dt', 'tr']);

/** Tags whose content is not text for people. */
const HIDDEN_TAGS = new Set(['script', 'style', 'template']);

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  copy: '©',
  reg: '®',
  trade: '™',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  laquo: '«',
  raquo: '»',
  bull: '•',
  middot: '·',
  times: '×',
};

const ENTITY = /&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z][a-zA-Z0-9]{1,31});/g;

/** Decodes the XML entities, numeric references and the common named HTML entities; leaves others. */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(ENTITY, (whole, name: string) => {
    if (name[0] !== '#') return NAMED_ENTITIES[name] ?? NAMED_ENTITIES[name.toLowerCase()] ?? whole;
    const code =
      name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
    const valid = code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff);
    return valid ? String.fromCodePoint(code) : whole;
  });
}

interface Tag {
  name: string;
  closing: boolean;
  /** The index just after the tag's `>`. */
  end: number;
}

/** Reads the tag, comment or declaration starting at `at` (a `<`); undefined when `<` is plain text. */
function readTag(html: string, at: number): Tag | undefined {
  if (html.startsWith('<!--', at)) {
    const close = html.indexOf('-->', at + 4);
    return { name: '!--', closing: false, end: close === -1 ? html.length : close + 3 };
  }
  const next = html[at + 1] ?? '';
  if (next === '!' || next === '?') {
    const close = html.indexOf('>', at);
    return { name: next, closing: false, end: close === -1 ? html.length : close + 1 };
  }
  const closing = next === '/';
  let i = at + (closing ? 2 : 1);
  const nameStart = i;
  while (i < html.length && /[a-zA-Z0-9]/.test(html[i]!)) i += 1;
  if (i === nameStart || !/[a-zA-Z]/.test(html[nameStart]!)) return undefined;
  const name = html.slice(nameStart, i).toLowerCase();
  // Attribute values may hold `>`: skip quoted runs.
  let quote = '';
  for (; i < html.length; i += 1) {
    const c = html[i]!;
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '>') return { name, closing, end: i + 1 };
  }
  return { name, closing, end: html.length };
}

/** The index just after the end tag of `name` at or after `from` (or the end of the text). */
function skipContent(html: string, name: string, from: number): number {
  // A literal search, then the next `>`: no pattern that could rescan the text.
  const endTag = new RegExp(`</${name}`, 'gi');
  endTag.lastIndex = from;
  const match = endTag.exec(html);
  if (!match) return html.length;
  const close = html.indexOf('>', match.index);
  return close === -1 ? html.length : close + 1;
}

/** Joins lines, drops trailing spaces and keeps at most one blank line in a row. */
function tidyLines(text: string): string {
  const lines = text.split('\n').map((line) => line.trimEnd());
  const out: string[] = [];
  for (const line of lines) {
    if (line === '' && (out.length === 0 || out[out.length - 1] === '')) continue;
    out.push(line);
  }
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return out.join('\n');
}

/**
 * Plain text of an HTML fragment: tags dropped, block elements and `<br>` as line breaks, list
 * items as "- " lines, entities decoded, white space collapsed outside `<pre>`. Text without any
 * tag is only entity-decoded, so plain-text descriptions keep their line breaks.
 */
export function htmlToText(html: string): string {
  if (!/<[a-zA-Z/!?]/.test(html)) return tidyLines(decodeEntities(html.replace(/\r\n?/g, '\n')));
  const out: string[] = [];
  let atLineStart = true;
  let inPre = 0;
  const push = (text: string) => {
    if (!text) return;
    out.push(text);
    atLineStart = text.endsWith('\n');
  };
  const endsWithSpace = () => out[out.length - 1]?.endsWith(' ') ?? false;
  const pushText = (raw: string) => {
    let text = inPre > 0 ? raw.replace(/\r\n?/g, '\n') : raw.replace(/\s+/g, ' ');
    if (inPre === 0 && (atLineStart || endsWithSpace())) text = text.trimStart();
    push(decodeEntities(text));
  };

  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt === -1) {
      pushText(html.slice(i));
      break;
    }
    if (lt > i) pushText(html.slice(i, lt));
    const tag = readTag(html, lt);
    if (!tag) {
      pushText('<');
      i = lt + 1;
      continue;
    }
    i = tag.end;
    if (HIDDEN_TAGS.has(tag.name) && !tag.closing) {
      i = skipContent(html, tag.name, i);
      continue;
    }
    if (tag.name === 'pre') inPre = Math.max(0, inPre + (tag.closing ? -1 : 1));
    // Blank lines pile up here; tidyLines keeps one.
    if (tag.name === 'li' && !tag.closing) push('\n- ');
    else if (PARAGRAPH_TAGS.has(tag.name)) push('\n\n');
    else if (LINE_TAGS.has(tag.name) && !(tag.closing && tag.name !== 'br')) push('\n');
    else if ((tag.name === 'td' || tag.name === 'th') && !tag.closing && !atLineStart && !endsWithSpace())
      push(' ');
  }
  return tidyLines(out.join(''));
}

const HREF = /\bhref\s*=\s*(?:"([^"<>]*)"|'([^'<>]*)')/gi;

/** The http(s) links (`href` values) of an HTML fragment, in order, without repeats. */
export function linksIn(html: string): string[] {
  const links = new Set<string>();
  for (const match of html.matchAll(HREF)) {
    const href = decodeEntities((match[1] ?? match[2] ?? '').trim());
    if (/^https?:\/\//i.test(href)) links.add(href);
  }
  return [...links];
}
