import {
  Anchor,
  Badge,
  Button,
  Card,
  Group,
  MultiSelect,
  NativeSelect,
  Paper,
  ScrollArea,
  SegmentedControl,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { Link } from 'react-router';
import { errorMessage } from '../../api/client';
import { useSignedInSession } from '../../api/session';
import {
  TICKET_MOVE_LABELS,
  TICKET_STATES,
  TICKET_TRANSITIONS,
  useTickets,
  useUpdateTicket,
} from '../../api/tickets';
import { hasRole, type Ticket, type TicketState } from '../../api/types';
import { DueDate, PriorityBadge, TicketStateBadge } from '../../components/Badges';
import { DateTime } from '../../components/DateTime';
import { LoadMore } from '../../components/LoadMore';
import { PageHeader } from '../../components/PageHeader';
import { TableSkeleton } from '../../components/PageSkeleton';
import { QueryError } from '../../components/QueryError';
import { TableHead } from '../../components/TableHead';
import { listParam, useUrlState } from '../../components/useUrlState';
import { IconPlus } from '../../icons';
import { counted, options, plural, TICKET_STATE_LABELS, ticketStateLabel } from '../../labels';
import { useUserName } from './assignees';
import { NewTicketModal } from './NewTicketModal';

const DONE: readonly TicketState[] = ['Resolved', 'Closed'];

export default function TicketsPage() {
  useDocumentTitle('Tickets · Rampart');
  const canChange = hasRole(useSignedInSession().User.Role, 'Analyst');
  const [params, update] = useUrlState();
  const view = params.get('view') === 'board' ? 'board' : 'list';
  const [creating, setCreating] = useState(false);

  return (
    <Stack gap="md">
      <PageHeader
        title="Tickets"
        action={
          <Group gap="sm">
            <SegmentedControl
              aria-label="View"
              value={view}
              onChange={(value) => update({ view: value === 'board' ? 'board' : undefined })}
              data={[
                { value: 'list', label: 'List' },
                { value: 'board', label: 'Board' },
              ]}
            />
            {canChange && (
              <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
                New ticket
              </Button>
            )}
          </Group>
        }
      >
        The work to fix findings: who does it, by when, and how far it has come.
      </PageHeader>

      {view === 'board' ? <TicketBoard canChange={canChange} /> : <TicketList />}

      <NewTicketModal opened={creating} onClose={() => setCreating(false)} />
    </Stack>
  );
}

function TicketList() {
  const [params, update] = useUrlState();
  const states = listParam(params, 'State', TICKET_STATES);
  const tickets = useTickets(states);
  const userName = useUserName();
  const rows = tickets.data?.pages.flatMap((page) => page.Items) ?? [];
  const total = tickets.data?.pages.at(-1)?.TotalCount;

  return (
    <>
      <Paper withBorder p="sm" radius="md" component="section" aria-label="Filters">
        <MultiSelect
          label="State"
          placeholder={states.length ? undefined : 'Any state'}
          data={options(TICKET_STATES, TICKET_STATE_LABELS)}
          value={states}
          onChange={(value) => update({ State: value.length ? value : undefined })}
          clearable
          maw={520}
        />
      </Paper>
      {tickets.isPending ? (
        <TableSkeleton rows={5} />
      ) : tickets.isError && !tickets.data ? (
        <QueryError error={tickets.error} onRetry={() => tickets.refetch()} />
      ) : (
        <>
          <Text size="sm" fw={600} aria-live="polite">
            {plural(total ?? rows.length, 'ticket')}
          </Text>
          {rows.length === 0 ? (
            <Text size="sm" c="dimmed" py="lg" ta="center">
              No tickets {states.length ? 'in these states' : 'yet'}.
            </Text>
          ) : (
            <Table.ScrollContainer minWidth={900}>
              <Table striped highlightOnHover verticalSpacing={6} fz="sm">
                <TableHead
                  columns={[
                    { label: 'Number', w: 60 },
                    'Title',
                    { label: 'Priority', w: 90 },
                    { label: 'State', w: 110 },
                    'Assignee',
                    { label: 'Findings', w: 80, ta: 'right' },
                    { label: 'Due', w: 140 },
                    { label: 'Updated', w: 170 },
                  ]}
                />
                <Table.Tbody>
                  {rows.map((ticket) => (
                    <Table.Tr key={ticket.Id}>
                      <Table.Td>#{ticket.Number}</Table.Td>
                      <Table.Td style={{ overflowWrap: 'anywhere' }}>
                        <Anchor component={Link} to={`/tickets/${ticket.Id}`} size="sm">
                          {ticket.Title}
                        </Anchor>
                      </Table.Td>
                      <Table.Td>
                        <PriorityBadge priority={ticket.Priority} />
                      </Table.Td>
                      <Table.Td>
                        <TicketStateBadge state={ticket.State} />
                      </Table.Td>
                      <Table.Td>
                        {userName(ticket.AssigneeId) ?? (
                          <Text c="dimmed" size="sm" component="span">
                            Unassigned
                          </Text>
                        )}
                      </Table.Td>
                      <Table.Td ta="right">{ticket.FindingCount}</Table.Td>
                      <Table.Td>
                        <DueDate value={ticket.DueAt} done={DONE.includes(ticket.State)} />
                      </Table.Td>
                      <Table.Td>
                        <DateTime value={ticket.UpdatedAt} />
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
          <LoadMore query={tickets} shown={rows.length} total={total} what="tickets" />
        </>
      )}
    </>
  );
}

function TicketBoard({ canChange }: { canChange: boolean }) {
  return (
    <ScrollArea type="auto" offsetScrollbars>
      <Group align="flex-start" wrap="nowrap" gap="sm" pb="xs">
        {TICKET_STATES.map((state) => (
          <BoardColumn key={state} state={state} canChange={canChange} />
        ))}
      </Group>
    </ScrollArea>
  );
}

function BoardColumn({ state, canChange }: { state: TicketState; canChange: boolean }) {
  const tickets = useTickets([state]);
  const rows = tickets.data?.pages.flatMap((page) => page.Items) ?? [];
  const total = tickets.data?.pages.at(-1)?.TotalCount;
  const headingId = `board-${state}`;

  return (
    <Paper
      withBorder
      radius="md"
      p="xs"
      // Five columns share the width; below 190 px each the board scrolls sideways.
      style={{ flex: '1 0 190px' }}
      bg="var(--mantine-color-default-hover)"
      component="section"
      aria-labelledby={headingId}
    >
      <Group justify="space-between" mb="xs" px={4}>
        <Title order={2} size="h5" id={headingId}>
          {ticketStateLabel(state)}
        </Title>
        <Badge variant="default" size="sm" aria-label={counted(total ?? 0, 'ticket')}>
          {total ?? '…'}
        </Badge>
      </Group>
      {tickets.isPending ? (
        <TableSkeleton rows={2} />
      ) : tickets.isError && !tickets.data ? (
        <QueryError error={tickets.error} onRetry={() => tickets.refetch()} />
      ) : (
        <Stack gap="xs">
          {rows.length === 0 && (
            <Text size="xs" c="dimmed" ta="center" py="sm">
              No tickets
            </Text>
          )}
          {rows.map((ticket) => (
            <BoardCard key={ticket.Id} ticket={ticket} canChange={canChange} />
          ))}
          {tickets.hasNextPage && (
            <Button
              size="compact-sm"
              variant="subtle"
              onClick={() => tickets.fetchNextPage()}
              loading={tickets.isFetchingNextPage}
            >
              Load more
            </Button>
          )}
        </Stack>
      )}
    </Paper>
  );
}

function BoardCard({ ticket, canChange }: { ticket: Ticket; canChange: boolean }) {
  const update = useUpdateTicket();
  const userName = useUserName();
  const moves = TICKET_TRANSITIONS[ticket.State] ?? [];

  // The card leaves its column once the board refreshes, so the promise (not the unmounted
  // component's callbacks) reports the outcome.
  const move = (state: TicketState) =>
    update.mutateAsync({ id: ticket.Id, State: state }).then(
      (saved) =>
        notifications.show({
          color: 'green',
          message: `Ticket #${saved.Number} is now ${ticketStateLabel(saved.State).toLowerCase()}.`,
        }),
      (error) => notifications.show({ color: 'red', message: errorMessage(error) }),
    );

  return (
    <Card
      withBorder
      padding="xs"
      radius="sm"
      component="article"
      aria-label={`#${ticket.Number} ${ticket.Title}`}
    >
      <Stack gap={6}>
        <Anchor
          component={Link}
          to={`/tickets/${ticket.Id}`}
          size="sm"
          fw={600}
          style={{ overflowWrap: 'anywhere' }}
        >
          #{ticket.Number} {ticket.Title}
        </Anchor>
        <Group gap={6}>
          <PriorityBadge priority={ticket.Priority} />
          <Text size="xs" c="dimmed">
            {plural(ticket.FindingCount, 'finding')}
          </Text>
        </Group>
        <Text size="xs" c="dimmed">
          {userName(ticket.AssigneeId) ?? 'Unassigned'}
          {ticket.DueAt && (
            <>
              {' · due '}
              <DueDate value={ticket.DueAt} done={DONE.includes(ticket.State)} />
            </>
          )}
        </Text>
        {canChange && moves.length > 0 && (
          <NativeSelect
            size="xs"
            aria-label={`Move #${ticket.Number} to`}
            value=""
            disabled={update.isPending}
            onChange={(e) => {
              const target = e.currentTarget.value as TicketState;
              if (target) move(target);
            }}
            data={[
              { value: '', label: 'Move to…' },
              ...moves.map((state) => ({
                value: state,
                label: `${TICKET_MOVE_LABELS[state]} (${ticketStateLabel(state).toLowerCase()})`,
              })),
            ]}
          />
        )}
      </Stack>
    </Card>
  );
}
