import { Anchor, Card, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useMemo } from 'react';
import { Link } from 'react-router';
import { OPEN_STATES, SEVERITIES, useFindingCount } from '../../api/findings';
import type { FindingFilter, Severity } from '../../api/types';
import { SeverityBadge } from '../../components/Badges';

/** The asset's open findings counted by severity, each count a link to the list. */
export function SeverityCounts({ assetId }: { assetId: string }) {
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
