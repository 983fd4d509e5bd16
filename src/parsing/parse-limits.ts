import { ReportError } from './report-error.js';

/**
 * How far any uploaded file (scanner report or intelligence feed) may go before it is refused:
 * counted on the bytes as they stream in, before a parser builds anything from them, so that a
 * small hostile file (a gzipped `[[[[…` forty million deep, an element with millions of
 * attributes, a text node of hundreds of megabytes) is stopped at the limit with its line and
 * column instead of taking the server's memory.
 */
export interface ParseLimits {
  /** Deepest nesting of JSON arrays and objects, or of XML elements. */
  maxDepth: number;
  /** Most attributes of one XML element; most cells of one CSV row. */
  maxAttributes: number;
  /**
   * Longest single text, in bytes: a JSON string or key, an XML text node, start tag (its
   * attributes included), comment, CDATA section or declaration, a CSV row, a line of a text file.
   */
  maxTextBytes: number;
  /** Most JSON values, XML elements, or CSV rows and text lines in one file. */
  maxElements: number;
}

/** What each limit is called in the configuration, for the messages that name it. */
export const PARSE_LIMIT_SETTINGS: Readonly<Record<keyof ParseLimits, string>> = {
  maxDepth: 'RAMPART_PARSE_MAX_DEPTH',
  maxAttributes: 'RAMPART_PARSE_MAX_ATTRIBUTES',
  maxTextBytes: 'RAMPART_PARSE_MAX_TEXT_BYTES',
  maxElements: 'RAMPART_PARSE_MAX_ELEMENTS',
};

/**
 * Far above what real reports and feeds hold (the deepest sample nests 12 levels; the NVD's
 * yearly feeds hold a few million values), far below what hurts a server.
 */
export const DEFAULT_PARSE_LIMITS: Readonly<ParseLimits> = {
  maxDepth: 64,
  maxAttributes: 1000,
  maxTextBytes: 16 * 1024 * 1024,
  maxElements: 50_000_000,
};

/**
 * Names (XML element and attribute names) and JSON numbers and literals are never longer than
 * this in a real file; the limit is fixed because no setting could make a longer one useful.
 */
export const MAX_NAME_BYTES = 4096;

let configured: ParseLimits = { ...DEFAULT_PARSE_LIMITS };

/**
 * Sets the limits every reader applies from now on (the composition root calls this once with
 * the configuration). Process-wide because the readers are shared, stateless functions that the
 * importers and the feed readers call without a context to carry them; a reader takes the limits
 * when it starts.
 */
export function setParseLimits(limits: Partial<ParseLimits>): void {
  configured = { ...DEFAULT_PARSE_LIMITS, ...limits };
}

/** The limits in force. */
export function parseLimits(): ParseLimits {
  return configured;
}

/** A file that goes beyond one of the limits: the message names the limit, its setting and where. */
export class ParseLimitError extends ReportError {
  constructor(
    readonly limit: keyof ParseLimits | 'maxNameBytes',
    /** The message without its position. */
    readonly what: string,
    line: number,
    column: number,
  ) {
    super(what, line, column);
    this.name = 'ParseLimitError';
  }
}

/** "16,777,216" */
export function count(n: number): string {
  return n.toLocaleString('en');
}

/** "(RAMPART_PARSE_MAX_DEPTH)" for a configurable limit. */
export function settingOf(limit: keyof ParseLimits): string {
  return `(${PARSE_LIMIT_SETTINGS[limit]})`;
}
