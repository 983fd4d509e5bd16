import {
  Anchor,
  Badge,
  Button,
  Group,
  Paper,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Tooltip,
} from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { useMemo, useState } from 'react';
import { Link } from 'react-router';
import { ASSET_KINDS, type AssetFilter, downloadAssetsCsv, useAssets } from '../../api/assets';
import { errorMessage } from '../../api/client';
import { saveBlob } from '../../api/download';
import { useSignedInSession } from '../../api/session';
import { type Asset, type AssetKind, hasRole } from '../../api/types';
import { DateOnly } from '../../components/Badges';
import { FilterTextInput } from '../../components/FilterTextInput';
import { LoadMore } from '../../components/LoadMore';
import { PageHeader } from '../../components/PageHeader';
import { TableSkeleton } from '../../components/PageSkeleton';
import { QueryError } from '../../components/QueryError';
import { TableHead } from '../../components/TableHead';
import { useUrlState } from '../../components/useUrlState';
import { IconDownload, IconPlus, IconSearch, IconWorld } from '../../icons';
import { ASSET_KIND_LABELS, labelOf, options, plural } from '../../labels';
import { AddAssetModal } from './AddAssetModal';

const NUMERIC = { fontVariantNumeric: 'tabular-nums' } as const;

export function addressesOf(asset: Pick<Asset, 'Kind' | 'Url' | 'IpAddresses' | 'Fqdn'>): string {
  if (asset.Kind === 'WebApplication' && asset.Url) return asset.Url;
  return asset.IpAddresses.length ? asset.IpAddresses.join(', ') : (asset.Url ?? asset.Fqdn ?? '—');
}

export default function AssetsPage() {
  useDocumentTitle('Assets · Rampart');
  const canAdd = hasRole(useSignedInSession().User.Role, 'Analyst');
  const [params, update] = useUrlState();
  const search = params.get('Search') ?? '';
  const tag = params.get('Tag') ?? '';
  const kindParam = params.get('Kind');
  const kind = ASSET_KINDS.includes(kindParam as AssetKind) ? (kindParam as AssetKind) : undefined;
  const filter = useMemo<AssetFilter>(
    () => ({ Search: search || undefined, Tag: tag || undefined, Kind: kind }),
    [search, tag, kind],
  );
  const assets = useAssets(filter);
  const [adding, setAdding] = useState(false);
  const [exporting, setExporting] = useState(false);

  const rows = assets.data?.pages.flatMap((page) => page.Items) ?? [];
  const total = assets.data?.pages.at(-1)?.TotalCount;

  const exportCsv = async () => {
    setExporting(true);
    try {
      saveBlob(await downloadAssetsCsv(filter), 'assets.csv');
    } catch (error) {
      notifications.show({ color: 'red', title: 'Export failed', message: errorMessage(error) });
    } finally {
      setExporting(false);
    }
  };

  return (
    <Stack gap="md">
      <PageHeader
        title="Assets"
        action={
          <Group gap="sm">
            <Button
              variant="default"
              leftSection={<IconDownload size={16} />}
              onClick={exportCsv}
              loading={exporting}
            >
              Export CSV
            </Button>
            {canAdd && (
              <Button leftSection={<IconPlus size={16} />} onClick={() => setAdding(true)}>
                Add asset
              </Button>
            )}
          </Group>
        }
      >
        Hosts and applications that scanners and people have reported, and how much each one matters.
      </PageHeader>

      <Paper withBorder p="sm" radius="md" component="section" aria-label="Filters">
        <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm">
          <FilterTextInput
            label="Search"
            placeholder="Name, FQDN, URL or address"
            leftSection={<IconSearch size={16} />}
            maxLength={200}
            value={search}
            onCommit={(value) => update({ Search: value })}
          />
          <Select
            label="Kind"
            placeholder="Any kind"
            data={options(ASSET_KINDS, ASSET_KIND_LABELS)}
            value={kind ?? null}
            onChange={(value) => update({ Kind: value ?? undefined })}
            clearable
          />
          <FilterTextInput
            label="Tag"
            maxLength={64}
            value={tag}
            onCommit={(value) => update({ Tag: value })}
          />
        </SimpleGrid>
      </Paper>

      {assets.isPending ? (
        <TableSkeleton rows={6} />
      ) : assets.isError && !assets.data ? (
        <QueryError error={assets.error} onRetry={() => assets.refetch()} />
      ) : (
        <>
          <Text size="sm" fw={600} aria-live="polite">
            {plural(total ?? rows.length, 'asset')}
          </Text>
          {rows.length === 0 ? (
            <Text size="sm" c="dimmed" py="lg" ta="center">
              No assets match these filters.
            </Text>
          ) : (
            <Table.ScrollContainer minWidth={1040} scrollAreaProps={{ type: 'auto' }}>
              <Table striped highlightOnHover verticalSpacing={6} fz="sm">
                <TableHead
                  columns={[
                    'Name',
                    'Kind',
                    'Addresses',
                    'Operating system',
                    { label: 'Open findings', ta: 'right' },
                    { label: 'Top risk', ta: 'right' },
                    { label: 'Criticality', ta: 'center' },
                    { label: 'Internet-facing', ta: 'center' },
                    'Tags',
                    'Last seen',
                  ]}
                />
                <Table.Tbody>
                  {rows.map((asset) => (
                    <Table.Tr key={asset.Id}>
                      {/* Names wrap between words; only a word wider than the column breaks. */}
                      <Table.Td style={{ overflowWrap: 'break-word' }}>
                        <Anchor component={Link} to={`/assets/${asset.Id}`} size="sm">
                          {asset.FriendlyName || asset.Name}
                        </Anchor>
                      </Table.Td>
                      <Table.Td>{labelOf(ASSET_KIND_LABELS, asset.Kind)}</Table.Td>
                      {/* Addresses wrap after their commas; only a URL may break inside. */}
                      <Table.Td
                        style={{ overflowWrap: asset.IpAddresses.length ? 'break-word' : 'anywhere' }}
                      >
                        {addressesOf(asset)}
                      </Table.Td>
                      <Table.Td>{asset.OperatingSystem ?? '—'}</Table.Td>
                      <Table.Td ta="right" style={NUMERIC}>
                        {asset.OpenFindings > 0 ? (
                          <Anchor
                            component={Link}
                            to={`/findings?AssetId=${asset.Id}&State=Open&State=Reopened`}
                            size="sm"
                            aria-label={`${plural(asset.OpenFindings, 'open finding')} on ${asset.FriendlyName || asset.Name}`}
                          >
                            {asset.OpenFindings.toLocaleString()}
                          </Anchor>
                        ) : (
                          '0'
                        )}
                      </Table.Td>
                      <Table.Td ta="right" style={NUMERIC}>
                        {asset.TopRisk === null ? (
                          <Text component="span" size="sm" c="dimmed" aria-label="No open findings">
                            —
                          </Text>
                        ) : (
                          Math.round(asset.TopRisk)
                        )}
                      </Table.Td>
                      <Table.Td ta="center">{asset.Criticality}</Table.Td>
                      <Table.Td ta="center">
                        {asset.InternetFacing ? (
                          <Tooltip label="Internet-facing">
                            <IconWorld
                              size={18}
                              color="var(--mantine-color-orange-6)"
                              role="img"
                              aria-label="Internet-facing"
                            />
                          </Tooltip>
                        ) : (
                          <Text component="span" size="sm" c="dimmed" aria-label="Not internet-facing">
                            —
                          </Text>
                        )}
                      </Table.Td>
                      <Table.Td>
                        <Group gap={4}>
                          {asset.Tags.map((t) => (
                            <Badge key={t} variant="default" size="sm">
                              {t}
                            </Badge>
                          ))}
                        </Group>
                      </Table.Td>
                      <Table.Td>
                        <DateOnly value={asset.LastSeen} />
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
          <LoadMore query={assets} shown={rows.length} total={total} what="assets" />
        </>
      )}

      <AddAssetModal opened={adding} onClose={() => setAdding(false)} />
    </Stack>
  );
}
