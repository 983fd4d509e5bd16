import { Card, Code, Stack, Text, Title } from '@mantine/core';
import type { AssetDetail } from '../../api/types';
import { DateTime } from '../../components/DateTime';
import { Fact } from '../../components/Fact';
import { IDENTIFIER_KIND_LABELS, labelOf } from '../../labels';

/** What scans and people reported of the asset: names, addresses, identifiers, sources. */
export function AssetFactsCard({ asset }: { asset: AssetDetail }) {
  return (
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
        {asset.MacAddresses.length > 0 && <Fact label="MAC addresses">{asset.MacAddresses.join(', ')}</Fact>}
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
  );
}
