/** A keyset page on the wire: its items, the cursor of the next page, and the count (when known). */
export const toPageDto = <T, D, N extends number | undefined>(
  page: { items: T[]; nextCursor: string | null; totalCount: N },
  toItem: (item: T) => D,
) => ({
  Items: page.items.map((item) => toItem(item)),
  NextCursor: page.nextCursor,
  TotalCount: page.totalCount,
});
