import {
  Anchor,
  Badge,
  Button,
  Card,
  Code,
  Group,
  NumberInput,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { type FormEvent, useMemo, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { type AssetChanges, splitList, useAsset, useDeleteAsset, useUpdateAsset } from '../../api/assets';
import { ApiError } from '../../api/client';
import { OPEN_STATES, SEVERITIES, useFindingCount } from '../../api/findings';
import { useSignedInSession } from '../../api/session';
import { type AssetDetail, type FindingFilter, hasRole, type Severity } from '../../api/types';
import { SeverityBadge } from '../../components/Badges';
import { ConfirmModal } from '../../components/ConfirmModal';
import { DateTime } from '../../components/DateTime';
import { Fact } from '../../components/Fact';
import { PageSkeleton } from '../../components/PageSkeleton';
import { ErrorAlert, QueryError } from '../../components/QueryError';
import { IconTrash, IconWorld } from '../../icons';
import { ASSET_KIND_LABELS, IDENTIFIER_KIND_LABELS, labelOf } from '../../labels';
import { FindingsTable } from '../findings/FindingsTable';
import { addressesOf } from './AssetsPage';
import { ServicesCard } from './ServicesCard';
import { SoftwareCard } from './SoftwareCard';

export default function AssetDetailPage() {
  const { id = '' } = useParams();
  const asset = useAsset(id);
  useDocumentTitle(`${asset.data ? asset.data.FriendlyName || asset.data.Name : 'Asset'} · Rampart`);
  return (
    <Stack gap="lg">
      {asset.isPending ? (
        <PageSkeleton />
      ) : asset.isError ? (
        <QueryError error={asset.error} onRetry={() => asset.refetch()} />
      ) : (
        <AssetView asset={asset.data} />
      )}
    </Stack>
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
          <Title order={1} style={{ overflowWrap: 'anywhere' }}>
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
        <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="asset-facts-title">
          <Title order={2} size="h4" id="asset-facts-title" mb="sm">
            Details
          </Title>
          <Stack gap={6} component="dl" m={0}>
            {asset.FriendlyName && <Fact label="Name">{asset.Name}</Fact>}
            <Fact label="Operating system">{asset.OperatingSystem ?? '—'}</Fact>
            {asset.Hostname && <Fact label="Hostname">{asset.Hostname}</Fact>}
            {asset.Fqdn && <Fact label="FQDN">{asset.Fqdn}</Fact>}
            {asset.IpAddresses.length > 0 && <Fact label="IP addresses">{asset.IpAddresses.join(', ')}</Fact>}
            {asset.MacAddresses.length > 0 && (
              <Fact label="MAC addresses">{asset.MacAddresses.join(', ')}</Fact>
            )}
            {asset.Url && <Fact label="URL">{asset.Url}</Fact>}
            <Fact label="Identifiers">
              {asset.Identifiers.length ? (
                <Stack gap={2}>
                  {asset.Identifiers.map((identifier) => (
                    <span key={`${identifier.Kind}:${identifier.Value}`}>
                      <Text component="span" size="xs" c="dimmed">
                        {labelOf(IDENTIFIER_KIND_LABELS, identifier.Kind)}
                      </Text>{' '}
                      <Code>{identifier.Value}</Code>
                    </span>
                  ))}
                </Stack>
              ) : (
                '—'
              )}
            </Fact>
            <Fact label="Sources">{asset.Sources.join(', ') || '—'}</Fact>
            <Fact label="First seen">
              <DateTime value={asset.FirstSeen} />
            </Fact>
            <Fact label="Last seen">
              <DateTime value={asset.LastSeen} />
            </Fact>
          </Stack>
        </Card>
        <EditCard asset={asset} readOnly={!hasRole(role, 'Analyst')} />
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
        confirmColor="red"
        pending={remove.isPending}
        error={remove.error}
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

const RATINGS = ['1', '2', '3', '4', '5'];
const RATING_OPTIONS = [{ value: '', label: 'Not set' }, ...RATINGS.map((r) => ({ value: r, label: r }))];

function ratingText(value: number | null): string {
  return value === null ? '' : String(value);
}

function EditCard({ asset, readOnly }: { asset: AssetDetail; readOnly: boolean }) {
  const update = useUpdateAsset(asset.Id);
  const [friendlyName, setFriendlyName] = useState(asset.FriendlyName ?? '');
  const [criticality, setCriticality] = useState<number | string>(asset.Criticality);
  const [confidentiality, setConfidentiality] = useState(ratingText(asset.Confidentiality));
  const [integrity, setIntegrity] = useState(ratingText(asset.Integrity));
  const [availability, setAvailability] = useState(ratingText(asset.Availability));
  const [internetFacing, setInternetFacing] = useState(asset.InternetFacing);
  const [tags, setTags] = useState(asset.Tags.join(', '));
  const [criticalityError, setCriticalityError] = useState<string>();

  const field = (path: string) =>
    update.error instanceof ApiError ? update.error.fieldError(path) : undefined;
  const rating = (text: string) => (text === '' ? null : Number(text));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (typeof criticality !== 'number' || criticality < 1 || criticality > 5) {
      setCriticalityError('Choose a criticality from 1 to 5.');
      return;
    }
    setCriticalityError(undefined);
    const body: AssetChanges = {
      FriendlyName: friendlyName.trim() || null,
      Criticality: criticality,
      Confidentiality: rating(confidentiality),
      Integrity: rating(integrity),
      Availability: rating(availability),
      InternetFacing: internetFacing,
      Tags: splitList(tags),
    };
    update.mutate(body, {
      onSuccess: (saved) => {
        setTags(saved.Tags.join(', '));
        notifications.show({ color: 'green', message: 'Asset saved.' });
      },
    });
  };

  const tagsError =
    update.error instanceof ApiError
      ? update.error.problem.errors?.find((e) => e.path.startsWith('/Tags'))?.message
      : undefined;

  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="asset-edit-title">
      <Title order={2} size="h4" id="asset-edit-title" mb="sm">
        Business context
      </Title>
      <form onSubmit={submit} noValidate aria-labelledby="asset-edit-title">
        <Stack gap="sm">
          <ErrorAlert
            error={
              update.error instanceof ApiError && update.error.problem.errors?.length ? null : update.error
            }
          />
          <TextInput
            label="Friendly name"
            description="Optional. Shown instead of the reported name."
            maxLength={255}
            value={friendlyName}
            onChange={(e) => setFriendlyName(e.currentTarget.value)}
            readOnly={readOnly}
            error={field('/FriendlyName')}
          />
          <NumberInput
            label="Criticality"
            description="1 (least) to 5 (most important to the business)."
            min={1}
            max={5}
            clampBehavior="strict"
            allowDecimal={false}
            value={criticality}
            onChange={setCriticality}
            readOnly={readOnly}
            error={criticalityError ?? field('/Criticality')}
          />
          <SimpleGrid cols={{ base: 1, xs: 3 }} spacing="sm">
            <Select
              label="Confidentiality"
              data={RATING_OPTIONS}
              value={confidentiality}
              onChange={(value) => setConfidentiality(value ?? '')}
              allowDeselect={false}
              readOnly={readOnly}
              error={field('/Confidentiality')}
            />
            <Select
              label="Integrity"
              data={RATING_OPTIONS}
              value={integrity}
              onChange={(value) => setIntegrity(value ?? '')}
              allowDeselect={false}
              readOnly={readOnly}
              error={field('/Integrity')}
            />
            <Select
              label="Availability"
              data={RATING_OPTIONS}
              value={availability}
              onChange={(value) => setAvailability(value ?? '')}
              allowDeselect={false}
              readOnly={readOnly}
              error={field('/Availability')}
            />
          </SimpleGrid>
          <Switch
            label="Internet-facing"
            description="Reachable from the internet: raises the risk of its findings."
            checked={internetFacing}
            onChange={(e) => setInternetFacing(e.currentTarget.checked)}
            disabled={readOnly}
            mt={4}
          />
          <TextInput
            label="Tags"
            description="Comma separated, e.g. production, pci"
            value={tags}
            onChange={(e) => setTags(e.currentTarget.value)}
            readOnly={readOnly}
            error={tagsError}
          />
          {!readOnly && (
            <Group>
              <Button type="submit" loading={update.isPending}>
                Save
              </Button>
            </Group>
          )}
        </Stack>
      </form>
    </Card>
  );
}

function SeverityCounts({ assetId }: { assetId: string }) {
  return (
    <Card withBorder padding="md" radius="md" component="section" aria-labelledby="asset-counts-title">
      <Title order={2} size="h4" id="asset-counts-title" mb="sm">
        Open findings by severity
      </Title>
      <SimpleGrid cols={{ base: 2, xs: 5 }} spacing="sm">
        {SEVERITIES.map((severity) => (
          <SeverityCount key={severity} assetId={assetId} severity={severity} />
        ))}
      </SimpleGrid>
    </Card>
  );
}

function SeverityCount({ assetId, severity }: { assetId: string; severity: Severity }) {
  const filter = useMemo<FindingFilter>(
    () => ({ AssetId: assetId, State: [...OPEN_STATES], Severity: [severity] }),
    [assetId, severity],
  );
  const count = useFindingCount(filter);
  return (
    <Anchor
      component={Link}
      to={`/findings?AssetId=${assetId}&Severity=${severity}`}
      underline="never"
      aria-label={`${severity}: ${count.data ?? 'unknown'} open`}
    >
      <Stack
        gap={4}
        align="center"
        p="xs"
        style={{
          borderRadius: 'var(--mantine-radius-sm)',
          border: '1px solid var(--mantine-color-default-border)',
        }}
      >
        <Text fw={700} size="xl" c={count.data ? undefined : 'dimmed'}>
          {count.isPending ? '…' : count.isError ? '?' : count.data}
        </Text>
        <SeverityBadge severity={severity} />
      </Stack>
    </Anchor>
  );
}
