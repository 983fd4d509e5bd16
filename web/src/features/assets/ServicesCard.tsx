import { Card, Code, Skeleton, Table, Text, Title } from '@mantine/core';
import { useAssetServices } from '../../api/assets';
import { DateTime } from '../../components/DateTime';
import { QueryError } from '../../components/QueryError';
import { TableHead } from '../../components/TableHead';

/** The open ports of a host, as scans and people reported them. */
export function ServicesCard({ assetId }: { assetId: string }) {
  const services = useAssetServices(assetId, true);
  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="asset-services-title">
      <Title order={2} size="h4" id="asset-services-title" mb="sm">
        Services
      </Title>
      {services.isPending ? (
        <Skeleton height={60} />
      ) : services.isError ? (
        <QueryError error={services.error} onRetry={() => services.refetch()} />
      ) : services.data.length === 0 ? (
        <Text size="sm" c="dimmed">
          No services recorded for this host yet.
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={600}>
          <Table striped>
            <TableHead columns={['Port', 'Service', 'Product and version', 'CPE', 'Last seen']} />
            <Table.Tbody>
              {services.data.map((s) => (
                <Table.Tr key={s.Id}>
                  <Table.Td>
                    {s.Port}/{s.Protocol}
                  </Table.Td>
                  <Table.Td>{s.Name ?? '—'}</Table.Td>
                  <Table.Td>{[s.Product, s.Version].filter(Boolean).join(' ') || '—'}</Table.Td>
                  <Table.Td>{s.Cpe ? <Code>{s.Cpe}</Code> : '—'}</Table.Td>
                  <Table.Td>
                    <DateTime value={s.LastSeen} />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Card>
  );
}
