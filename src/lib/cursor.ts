const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Opaque keyset cursors: base64url JSON of the last row's sort key. */
export function encodeCursor(key: Record<string, string | number>): string {
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

/** The decoded key, or undefined when the cursor was not made by encodeCursor with these fields. */
export function decodeCursor<K extends string>(
  cursor: string,
  fields: readonly K[],
): Record<K, string> | undefined {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown>;
    if (typeof value !== 'object' || value === null) return undefined;
    for (const f of fields) if (typeof value[f] !== 'string') return undefined;
    // Cursor values go into typed SQL comparisons: a forged id must fail here, not in the database.
    if ('Id' in value && !UUID.test(String(value.Id))) return undefined;
    return value as Record<K, string>;
  } catch {
    return undefined;
  }
}

/** The position after a row in a newest-first list keyed on (CreatedAt, Id). */
export interface CreatedAtKey {
  createdAt: string;
  id: string;
}

/** The key of a (CreatedAt, Id) cursor; undefined when the text is not one. */
export function decodeCreatedAtCursor(cursor: string): CreatedAtKey | undefined {
  const key = decodeCursor(cursor, ['CreatedAt', 'Id']);
  if (!key || Number.isNaN(Date.parse(key.CreatedAt))) return undefined;
  return { createdAt: key.CreatedAt, id: key.Id };
}

/**
 * A keyset page from rows read one beyond the page size: the page's rows, and the cursor after its
 * last one (`keyOf` gives a row's sort key) when there is more, null at the end.
 */
export function keysetPage<T>(
  rows: T[],
  pageSize: number,
  keyOf: (row: T) => Record<string, string | number>,
): { items: T[]; nextCursor: string | null } {
  const items = rows.slice(0, pageSize);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > pageSize && last ? encodeCursor(keyOf(last)) : null };
}

/** A page of a (CreatedAt, Id) list from rows read one beyond the page size. */
export function createdAtPage<T extends { createdAt: Date; id: string }>(
  rows: T[],
  pageSize: number,
): { items: T[]; nextCursor: string | null } {
  return keysetPage(rows, pageSize, (r) => ({ CreatedAt: r.createdAt.toISOString(), Id: r.id }));
}
