import { Card, Group, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { type InstalledSoftware, useAssetSoftware } from '../../api/assets';
import type { Severity } from '../../api/types';
import { SeverityBadge } from '../../components/Badges';
import { DateTime } from '../../components/DateTime';
import { FilterTextInput } from '../../components/FilterTextInput';
import { LoadMore } from '../../components/LoadMore';
import { QueryError } from '../../components/QueryError';
import { TableHead } from '../../components/TableHead';
import { labelOf, SOFTWARE_CATEGORY_LABELS } from '../../labels';

const SEVERITIES: readonly Exclude<Severity, 'Info'>[] = ['Critical', 'High', 'Medium', 'Low'];

function OpenFindings({ counts }: { counts: InstalledSoftware['OpenFindings'] }) {
  const present = SEVERITIES.filter((s) => counts[s] > 0);
  if (present.length === 0)
    return (
      <Text size="sm" c="dimmed">
        None
      </Text>
    );
  return (
    <Group gap={6} wrap="nowrap">
      {present.map((s) => (
        <Group key={s} gap={4} wrap="nowrap">
          <SeverityBadge severity={s} />
          <Text size="sm">{counts[s]}</Text>
        </Group>
      ))}
    </Group>
  );
}

/** What is installed on the asset, with the open findings in each package. */
export function SoftwareCard({ assetId }: { assetId: string }) {
  const [search, setSearch] = useState('');
  const software = useAssetSoftware(assetId, search);
  const rows = software.data?.pages.flatMap((p) => p.Items) ?? [];
  const total = software.data?.pages[0]?.TotalCount;
  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="asset-software-title">
      <Stack gap="sm">
        <Group justify="space-between" align="end">
          <Title order={2} size="h4" id="asset-software-title">
            Installed software
          </Title>
          <FilterTextInput
            label="Search software"
            placeholder="Name or vendor"
            value={search}
            onCommit={setSearch}
            w={240}
          />
        </Group>
        {software.isPending ? (
          <Skeleton height={60} />
        ) : software.isError && rows.length === 0 ? (
          <QueryError error={software.error} onRetry={() => software.refetch()} />
        ) : rows.length === 0 ? (
          <Text size="sm" c="dimmed">
            {search
              ? `No installed software matches “${search}”.`
              : 'No software recorded for this asset yet.'}
          </Text>
        ) : (
          <>
            <Table.ScrollContainer minWidth={640}>
              <Table striped>
                <TableHead columns={['Name', 'Version', 'Category', 'Open findings', 'Last seen']} />
                <Table.Tbody>
                  {rows.map((s) => (
                    <Table.Tr key={s.Id}>
                      <Table.Td>
                        <Text size="sm" fw={500}>
                          {s.Name}
                        </Text>
                        {s.Vendor && (
                          <Text size="xs" c="dimmed">
                            {s.Vendor}
                          </Text>
                        )}
                      </Table.Td>
                      <Table.Td>{s.Version || '—'}</Table.Td>
                      <Table.Td>{labelOf(SOFTWARE_CATEGORY_LABELS, s.Category)}</Table.Td>
                      <Table.Td>
                        <OpenFindings counts={s.OpenFindings} />
                      </Table.Td>
                      <Table.Td>
                        <DateTime value={s.LastSeen} />
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
            <LoadMore query={software} shown={rows.length} total={total} what="software" />
          </>
        )}
      </Stack>
    </Card>
  );
}
