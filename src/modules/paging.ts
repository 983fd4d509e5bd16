import { decodeCursor } from '../lib/cursor.js';
import { AppError } from '../problems/app-error.js';
import { Problems } from '../problems/catalogue.js';

/** The sort key a list's cursor carries; a text that is not the NextCursor of a page of the list is a 400. */
export function cursorKey<K extends string>(cursor: string, fields: readonly K[]): Record<K, string> {
  const key = decodeCursor(cursor, fields);
  if (!key)
    throw AppError.of(
      Problems.ValidationFailed,
      'Cursor is not valid; pass the NextCursor of a previous page.',
    );
  return key;
}
