import { Anchor, Card, Group, SimpleGrid, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { useMemo } from 'react';
import { Link } from 'react-router';
import { OPEN_STATES, SEVERITIES, useFindingCount } from '../../api/findings';
import { OPEN_TICKET_STATES, useTicketCount } from '../../api/tickets';
import type { FindingFilter, Severity } from '../../api/types';
import { SeverityBadge } from '../../components/Badges';
import { IconShieldCheck, IconTicket } from '../../icons';

/** Open findings by severity and open tickets, each a way into the list behind it. */
export function ExposureCard() {
  const tickets = useTicketCount(OPEN_TICKET_STATES);
  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="exposure-title">
      <Group gap="sm" mb="sm" wrap="nowrap">
        <ThemeIcon variant="light" size="lg" aria-hidden>
          <IconShieldCheck size={20} />
        </ThemeIcon>
        <Title order={2} size="h4" id="exposure-title">
          Your exposure
        </Title>
      </Group>
      <Text size="sm" c="dimmed" mb="sm">
        Open findings (Open and Reopened) by severity.
      </Text>
      <SimpleGrid cols={{ base: 3, xs: 5 }} spacing="xs">
        {SEVERITIES.map((severity) => (
          <SeverityCount key={severity} severity={severity} />
        ))}
      </SimpleGrid>
      <Group gap="xs" mt="md">
        <IconTicket size={16} aria-hidden />
        <Text size="sm">
          Open tickets:{' '}
          <Text component="span" fw={700} size="sm">
            {tickets.isPending ? '…' : tickets.isError ? '?' : tickets.data}
          </Text>
        </Text>
      </Group>
    </Card>
  );
}

function SeverityCount({ severity }: { severity: Severity }) {
  const filter = useMemo<FindingFilter>(
    () => ({ State: [...OPEN_STATES], Severity: [severity] }),
    [severity],
  );
  const count = useFindingCount(filter);
  const value = count.isPending ? '…' : count.isError ? '?' : String(count.data);
  return (
    <Anchor
      component={Link}
      to={`/findings?Severity=${severity}`}
      underline="never"
      c="inherit"
      aria-label={`${severity}: ${value} open`}
    >
      <Stack
        gap={4}
        align="center"
        py="xs"
        style={{
          borderRadius: 'var(--mantine-radius-sm)',
          border: '1px solid var(--mantine-color-default-border)',
        }}
      >
        <Text
          fw={700}
          size="xl"
          c={count.data ? undefined : 'dimmed'}
          style={{ fontVariantNumeric: 'tabular-nums' }}
        >
          {value}
        </Text>
        <SeverityBadge severity={severity} />
      </Stack>
    </Anchor>
  );
}
