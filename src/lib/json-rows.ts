declare const rowsOf: unique symbol;

/**
 * A JSON array of rows of type T, as text: what a staging statement sends as its one parameter
 * (`jsonb_to_recordset($1::jsonb)`). The type keeps the rows' shape checked from the module that
 * builds them to the module whose statement reads them.
 */
export type JsonArrayOf<T> = string & { readonly [rowsOf]: T };

/**
 * Rows waiting for one statement, each serialised as it is added. A 100,000-finding import used
 * to keep each batch as objects until the statement serialised them all at once: the objects
 * (and the parser's strings they held) lived long enough to reach V8's old generation, which Node
 * 24 lets grow by hundreds of MB before collecting it. Serialised at once, a row's object dies
 * young and what waits is one flat string per row.
 */
export class JsonRows<T> {
  private parts: string[] = [];

  add(row: T): void {
    this.parts.push(JSON.stringify(row));
  }

  get length(): number {
    return this.parts.length;
  }

  /** The rows as one JSON array; the batch is empty afterwards. */
  take(): JsonArrayOf<T> {
    const json = `[${this.parts.join(',')}]`;
    this.parts = [];
    return json as JsonArrayOf<T>;
  }
}

/** Rows already in hand (tests, small callers) as the text a staging statement takes. */
export function jsonArrayOf<T>(rows: readonly T[]): JsonArrayOf<T> {
  return JSON.stringify(rows) as JsonArrayOf<T>;
}
