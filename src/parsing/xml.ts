import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { XmlGuard } from './byte-guards.js';
import { type ParseLimits, parseLimits } from './parse-limits.js';
import { ReportError } from './report-error.js';

/** An element read whole: its attributes, its text, its child elements. */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  /** The element's own text and CDATA, joined (children's text not included). */
  text: string;
  children: XmlElement[];
}

/** An open ancestor of a picked element (name and attributes only). */
export interface XmlAncestor {
  name: string;
  attributes: Record<string, string>;
}

export interface XmlElementsOptions {
  /** Text of one element longer than this is cut; default 1 MiB. */
  maxTextChars?: number;
  /** A picked element with more descendants than this fails the report; default 200,000. */
  maxDescendants?: number;
  /**
   * The most characters (attributes and text, as cut) held at once: the picked element with all
   * it holds, plus the attributes of its open ancestors; default 64 Mi.
   */
  maxHeldChars?: number;
  /** Nesting deeper than this fails the report (hostile files); default: limits.maxDepth. */
  maxDepth?: number;
  onTruncated?: (element: string) => void;
  /** Depth, attributes, text size and element count the file may reach; default: the configured parseLimits(). */
  limits?: ParseLimits;
}

// Entity and notation declarations (and parameter entities) are what XXE and entity-expansion
// attacks need; element and attribute-list declarations are inert here (Burp writes them).
const DTD_DECLARATION = /<!(ENTITY|NOTATION)\b|%[\w.-]+;/i;

/**
 * Streams the elements `pick` accepts (by name and open ancestors), each read whole, in document
 * order. Everything else is passed over as it streams, so memory holds one picked element.
 *
 * Hostile files: a DOCTYPE that declares entities (XXE, "billion laughs") is refused before
 * any entity could be used (element and attribute-list declarations are inert and allowed);
 * undeclared entities are errors (saxes knows only the five XML ones and never fetches
 * anything). The bytes pass an XmlGuard before saxes sees them, so depth, attributes per
 * element, the size of every text node, start tag and name, and the count of elements are
 * bounded before saxes builds anything (it keeps a text node and a tag's attributes whole until
 * they end); a picked element's text and size are capped too. Malformed XML fails with its line
 * and column.
 */
export async function* xmlElements(
  input: Readable,
  pick: (name: string, ancestors: readonly XmlAncestor[]) => boolean,
  options: XmlElementsOptions = {},
): AsyncGenerator<{ element: XmlElement; ancestors: readonly XmlAncestor[] }> {
  const maxText = options.maxTextChars ?? 1024 * 1024;
  const maxDescendants = options.maxDescendants ?? 200_000;
  const maxHeld = options.maxHeldChars ?? 64 * 1024 * 1024;
  const limits = options.limits ?? parseLimits();
  const maxDepth = options.maxDepth ?? limits.maxDepth;
  const guard = new XmlGuard(limits);
  const parser = new SaxesParser({ xmlns: false, position: true });

  const ancestors: XmlAncestor[] = [];
  // The picked element being read, innermost last.
  const building: XmlElement[] = [];
  let pickedAncestors: readonly XmlAncestor[] = [];
  let descendants = 0;
  // Characters held: by each open ancestor (its attributes), and by the picked element so far.
  const ancestorChars: number[] = [];
  let ancestorsHeld = 0;
  let pickedHeld = 0;
  let failure: ReportError | undefined;
  const ready: { element: XmlElement; ancestors: readonly XmlAncestor[] }[] = [];

  const fail = (message: string) => {
    failure ??= new ReportError(message, parser.line, parser.column + 1);
  };
  const hold = (chars: number) => {
    pickedHeld += chars;
    if (ancestorsHeld + pickedHeld > maxHeld)
      fail(
        `An <${building[0]?.name ?? ancestors[ancestors.length - 1]?.name}> element holds more than ${maxHeld.toLocaleString('en')} characters of attributes and text; an element this large is refused.`,
      );
  };
  const appendText = (text: string) => {
    const current = building[building.length - 1];
    if (!current) return;
    const before = current.text.length;
    if (current.text.length + text.length > maxText) {
      if (current.text.length < maxText) options.onTruncated?.(current.name);
      current.text = (current.text + text).slice(0, maxText);
    } else current.text += text;
    hold(current.text.length - before);
  };

  parser.on('doctype', (doctype) => {
    if (DTD_DECLARATION.test(doctype))
      fail('The XML declares a DTD with entities; such files are refused (XXE and entity expansion).');
  });
  parser.on('opentag', (tag) => {
    const { name, attributes } = tag as SaxesTagPlain & { attributes: Record<string, string> };
    if (ancestors.length + 1 > maxDepth) return fail(`XML nested deeper than ${maxDepth} elements.`);
    const chars = attributeChars(attributes);
    if (building.length > 0) {
      descendants += 1;
      if (descendants > maxDescendants)
        return fail(`An <${building[0]!.name}> element holds more than ${maxDescendants} elements.`);
      const child: XmlElement = { name, attributes: { ...attributes }, text: '', children: [] };
      building[building.length - 1]!.children.push(child);
      building.push(child);
      hold(chars);
    } else if (pick(name, ancestors)) {
      pickedAncestors = ancestors.map((a) => a);
      descendants = 0;
      pickedHeld = 0;
      building.push({ name, attributes: { ...attributes }, text: '', children: [] });
      hold(chars);
    }
    const held = building.length > 0 ? 0 : chars;
    ancestors.push({ name, attributes: building.length > 0 ? {} : { ...attributes } });
    ancestorChars.push(held);
    ancestorsHeld += held;
    if (held > 0) hold(0);
  });
  parser.on('text', appendText);
  parser.on('cdata', appendText);
  parser.on('closetag', () => {
    ancestors.pop();
    ancestorsHeld -= ancestorChars.pop() ?? 0;
    const done = building.pop();
    if (done && building.length === 0) {
      ready.push({ element: done, ancestors: pickedAncestors });
      pickedHeld = 0;
    }
  });
  parser.on('error', (error) => {
    fail(`Not well-formed XML: ${error.message.replace(/^(undefined:)?\d+:\d+: /, '')}`);
  });

  const decoder = new StringDecoder('utf8');
  for await (const chunk of input) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : (chunk as Buffer);
    guard.write(bytes);
    parser.write(decoder.write(bytes));
    if (failure) throw failure;
    while (ready.length > 0) yield ready.shift()!;
  }
  parser.write(decoder.end());
  parser.close();
  if (failure) throw failure;
  while (ready.length > 0) yield ready.shift()!;
}

function attributeChars(attributes: Record<string, string>): number {
  let chars = 0;
  for (const key in attributes) chars += key.length + (attributes[key]?.length ?? 0);
  return chars;
}

/** The first child named `name`, if any. */
export function child(element: XmlElement, name: string): XmlElement | undefined {
  return element.children.find((c) => c.name === name);
}

/** Every child named `name`. */
export function children(element: XmlElement, name: string): XmlElement[] {
  return element.children.filter((c) => c.name === name);
}

/** The trimmed text of the first child named `name`, or undefined when absent or empty. */
export function childText(element: XmlElement, name: string): string | undefined {
  const text = child(element, name)?.text.trim();
  return text ? text : undefined;
}
