import { Table, VisuallyHidden } from '@mantine/core';

/** A column heading: its words, or its words and how the column is aligned and sized. */
export type HeadColumn =
  | string
  | { label: string; ta?: 'right' | 'center'; w?: number; miw?: number }
  /** A column without words (buttons), named for screen readers. */
  | { ariaLabel: string }
  /** A column without visible words, its words kept for screen readers. */
  | { hidden: string; w?: number };

/** A table's heading row, from its columns' words: the tables of every page read alike. */
export function TableHead({ columns }: { columns: (HeadColumn | false)[] }) {
  return (
    <Table.Thead>
      <Table.Tr>
        {columns.map((c) => {
          if (c === false) return null;
          if (typeof c === 'string') return <Table.Th key={c}>{c}</Table.Th>;
          if ('ariaLabel' in c) return <Table.Th key={c.ariaLabel} aria-label={c.ariaLabel} />;
          if ('hidden' in c)
            return (
              <Table.Th key={c.hidden} w={c.w}>
                <VisuallyHidden>{c.hidden}</VisuallyHidden>
              </Table.Th>
            );
          return (
            <Table.Th key={c.label} ta={c.ta} w={c.w} miw={c.miw}>
              {c.label}
            </Table.Th>
          );
        })}
      </Table.Tr>
    </Table.Thead>
  );
}
