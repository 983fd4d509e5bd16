import { Table } from '@mantine/core';

/** The product, version and CPEs a scan named for a service or a header, as three table cells. */
export function SoftwareCells({
  software,
}: {
  software: { Product: string | null; Version: string | null; Cpes: string[] };
}) {
  return (
    <>
      <Table.Td>{software.Product ?? '—'}</Table.Td>
      <Table.Td>{software.Version ?? '—'}</Table.Td>
      <Table.Td style={{ fontFamily: 'var(--mantine-font-family-monospace)', overflowWrap: 'anywhere' }}>
        {software.Cpes.length ? software.Cpes.join(' ') : '—'}
      </Table.Td>
    </>
  );
}
