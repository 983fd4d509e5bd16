import { Button, Card, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { useParams } from 'react-router';
import { useSignedInSession } from '../../api/session';
import { TICKET_MOVE_LABELS, TICKET_TRANSITIONS, useTicket, useUpdateTicket } from '../../api/tickets';
import { hasRole, type TicketDetail, type TicketState } from '../../api/types';
import { DueDate, PriorityBadge, TicketStateBadge } from '../../components/Badges';
import { DateTime } from '../../components/DateTime';
import { DetailPage } from '../../components/DetailPage';
import { Fact } from '../../components/Fact';
import { ErrorAlert } from '../../components/QueryError';
import { plural, ticketStateLabel } from '../../labels';
import { EventTimeline } from '../findings/EventTimeline';
import { VerifyTicketButton } from '../verify/VerifyButton';
import { useUserName } from './assignees';
import { LinkedFindings } from './LinkedFindings';
import { TicketComments } from './TicketComments';
import { TicketEditCard } from './TicketEditCard';

export default function TicketDetailPage() {
  const { id = '' } = useParams();
  const ticket = useTicket(id);
  return (
    <DetailPage query={ticket} title={ticket.data ? `#${ticket.data.Number} ${ticket.data.Title}` : 'Ticket'}>
      {(data) => <TicketView ticket={data} />}
    </DetailPage>
  );
}

// The order the buttons appear in, whatever the current state allows.
const MOVE_ORDER: readonly TicketState[] = ['InProgress', 'Resolved', 'Closed', 'Reopened', 'Open'];

function TicketView({ ticket }: { ticket: TicketDetail }) {
  const canChange = hasRole(useSignedInSession().User.Role, 'Analyst');
  const update = useUpdateTicket();
  const userName = useUserName();
  const [moving, setMoving] = useState<TicketState | null>(null);
  const allowed = TICKET_TRANSITIONS[ticket.State] ?? [];

  const move = (state: TicketState) => {
    setMoving(state);
    update.mutate(
      { id: ticket.Id, State: state },
      {
        onSuccess: (saved) =>
          notifications.show({
            color: 'green',
            message: `Ticket is now ${ticketStateLabel(saved.State).toLowerCase()}.`,
          }),
        onSettled: () => setMoving(null),
      },
    );
  };

  return (
    <Stack gap="lg">
      <div>
        <Text size="sm" c="dimmed" fw={600}>
          Ticket #{ticket.Number}
        </Text>
        <Title order={1} style={{ overflowWrap: 'anywhere' }}>
          {ticket.Title}
        </Title>
        <Group gap="xs" mt="xs">
          <TicketStateBadge state={ticket.State} />
          <PriorityBadge priority={ticket.Priority} />
          <Text size="sm" c="dimmed">
            {userName(ticket.AssigneeId) ?? 'Unassigned'} · {plural(ticket.FindingCount, 'finding')}
          </Text>
        </Group>
      </div>

      {canChange && (
        <Group gap="sm" role="group" aria-label="Ticket actions">
          {MOVE_ORDER.filter((state) => allowed.includes(state)).map((state) => (
            <Button
              key={state}
              variant={state === 'InProgress' || state === 'Resolved' ? 'filled' : 'default'}
              onClick={() => move(state)}
              loading={moving === state}
              disabled={moving !== null && moving !== state}
            >
              {TICKET_MOVE_LABELS[state]}
            </Button>
          ))}
          {ticket.FindingCount > 0 && (
            <VerifyTicketButton
              ticketId={ticket.Id}
              titles={new Map(ticket.Findings.map((finding) => [finding.Id, finding.Title]))}
            />
          )}
        </Group>
      )}
      {moving === null && <ErrorAlert error={update.error} />}

      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
        <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="ticket-about-title">
          <Title order={2} size="h4" id="ticket-about-title" mb="sm">
            About
          </Title>
          <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }} mb="md">
            {ticket.Description || 'No description.'}
          </Text>
          <Stack gap={6} component="dl" m={0}>
            <Fact label="Due">
              <DueDate value={ticket.DueAt} done={ticket.State === 'Resolved' || ticket.State === 'Closed'} />
            </Fact>
            <Fact label="Created">
              <DateTime value={ticket.CreatedAt} />
              {ticket.CreatedById && ` by ${userName(ticket.CreatedById)}`}
            </Fact>
            <Fact label="Updated">
              <DateTime value={ticket.UpdatedAt} />
            </Fact>
            {ticket.ResolvedAt && (
              <Fact label="Resolved">
                <DateTime value={ticket.ResolvedAt} />
              </Fact>
            )}
            {ticket.ClosedAt && (
              <Fact label="Closed">
                <DateTime value={ticket.ClosedAt} />
              </Fact>
            )}
          </Stack>
        </Card>
        {/* Starts again from the saved ticket each time it changes. */}
        {canChange && <TicketEditCard key={ticket.UpdatedAt} ticket={ticket} />}
      </SimpleGrid>

      <LinkedFindings ticket={ticket} canChange={canChange} />

      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
        <TicketComments ticket={ticket} canChange={canChange} />
        <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="ticket-history-title">
          <Title order={2} size="h4" id="ticket-history-title" mb="md">
            History
          </Title>
          <EventTimeline events={ticket.Events} subject="ticket" />
        </Card>
      </SimpleGrid>
    </Stack>
  );
}
