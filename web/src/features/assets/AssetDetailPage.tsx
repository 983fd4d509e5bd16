import { Badge, Button, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMemo, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { useAsset, useDeleteAsset } from '../../api/assets';
import { OPEN_STATES } from '../../api/findings';
import { useSignedInSession } from '../../api/session';
import { type AssetDetail, type FindingFilter, hasRole } from '../../api/types';
import { ConfirmModal } from '../../components/ConfirmModal';
import { DetailPage } from '../../components/DetailPage';
import { IconTrash, IconWorld } from '../../icons';
import { ASSET_KIND_LABELS, labelOf } from '../../labels';
import { FindingsTable } from '../findings/FindingsTable';
import { AssetEditCard } from './AssetEditCard';
import { AssetFactsCard } from './AssetFactsCard';
import { addressesOf } from './AssetsPage';
import { ServicesCard } from './ServicesCard';
import { SeverityCounts } from './SeverityCounts';
import { SoftwareCard } from './SoftwareCard';

export default function AssetDetailPage() {
  const { id = '' } = useParams();
  const asset = useAsset(id);
  return (
    <DetailPage query={asset} title={asset.data ? asset.data.FriendlyName || asset.data.Name : 'Asset'}>
      {(data) => <AssetView asset={data} />}
    </DetailPage>
  );
}

function AssetView({ asset }: { asset: AssetDetail }) {
  const role = useSignedInSession().User.Role;
  const navigate = useNavigate();
  const remove = useDeleteAsset(asset.Id);
  const [deleting, setDeleting] = useState(false);
  const openFilter = useMemo<FindingFilter>(
    () => ({ AssetId: asset.Id, State: [...OPEN_STATES] }),
    [asset.Id],
  );

  return (
    <Stack gap="lg">
      <Group justify="space-between" align="flex-start">
        <div style={{ minWidth: 0 }}>
          {/* Wraps between words; only a word wider than the page breaks. */}
          <Title order={1} style={{ overflowWrap: 'break-word' }}>
            {asset.FriendlyName || asset.Name}
          </Title>
          <Group gap="xs" mt="xs">
            <Badge variant="light">{labelOf(ASSET_KIND_LABELS, asset.Kind)}</Badge>
            {asset.InternetFacing && (
              <Badge color="orange" variant="light" leftSection={<IconWorld size={12} />}>
                Internet-facing
              </Badge>
            )}
            <Text size="sm" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
              {addressesOf(asset)}
            </Text>
          </Group>
        </div>
        {hasRole(role, 'Manager') && (
          <Button
            variant="subtle"
            color="red"
            leftSection={<IconTrash size={16} />}
            onClick={() => {
              remove.reset();
              setDeleting(true);
            }}
          >
            Delete asset
          </Button>
        )}
      </Group>

      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
        <AssetFactsCard asset={asset} />
        <AssetEditCard asset={asset} readOnly={!hasRole(role, 'Analyst')} />
      </SimpleGrid>

      <SeverityCounts assetId={asset.Id} />

      {asset.Kind === 'Host' && <ServicesCard assetId={asset.Id} />}

      <SoftwareCard assetId={asset.Id} />

      <section aria-labelledby="asset-findings-title">
        <Title order={2} size="h4" id="asset-findings-title" mb="sm">
          Open findings
        </Title>
        <FindingsTable
          filter={openFilter}
          sort="-Risk"
          hideAsset
          emptyText="This asset has no open findings."
        />
      </section>

      <ConfirmModal
        opened={deleting}
        onClose={() => setDeleting(false)}
        title="Delete asset"
        confirmLabel="Delete"
        mutation={remove}
        onConfirm={() =>
          remove.mutate(undefined, {
            onSuccess: () => {
              setDeleting(false);
              notifications.show({
                color: 'green',
                message: `Asset “${asset.FriendlyName || asset.Name}” deleted.`,
              });
              navigate('/assets');
            },
          })
        }
      >
        <Text size="sm">
          Delete “{asset.FriendlyName || asset.Name}” and its findings? A later scan that reports it adds it
          again as a new asset.
        </Text>
      </ConfirmModal>
    </Stack>
  );
}
