import { type TInteger, type TSchema, Type } from 'typebox';

/** The schema of a keyset page of `item`s; `totalCount` says how the list counts when not always exactly. */
export const PageSchema = <T extends TSchema, C extends TSchema = TInteger>(
  item: T,
  totalCount: C = Type.Integer() as TSchema as C,
) =>
  Type.Object(
    { Items: Type.Array(item), NextCursor: Type.Union([Type.String(), Type.Null()]), TotalCount: totalCount },
    { additionalProperties: false },
  );

/** The paging fields of a list query: at most `maximum` items a page (`size` when not said), after `Cursor`. */
export const pageQueryFields = (size: number, maximum = 500) => ({
  PageSize: Type.Optional(Type.Integer({ minimum: 1, maximum, default: size })),
  Cursor: Type.Optional(Type.String({ maxLength: 1000 })),
});

/** A keyset page on the wire: its items, the cursor of the next page, and the count (when known). */
export const toPageDto = <T, D, N extends number | undefined>(
  page: { items: T[]; nextCursor: string | null; totalCount: N },
  toItem: (item: T) => D,
) => ({
  Items: page.items.map((item) => toItem(item)),
  NextCursor: page.nextCursor,
  TotalCount: page.totalCount,
});
