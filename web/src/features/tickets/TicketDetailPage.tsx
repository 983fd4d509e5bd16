import {
  Anchor,
  Button,
  Card,
  Group,
  Paper,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Textarea,
  TextInput,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { type FormEvent, useState } from 'react';
import { Link, useParams } from 'react-router';
import { ApiError } from '../../api/client';
import { useSignedInSession } from '../../api/session';
import {
  PRIORITIES,
  TICKET_MOVE_LABELS,
  TICKET_TRANSITIONS,
  useAddComment,
  useTicket,
  useUnlinkFindings,
  useUpdateTicket,
} from '../../api/tickets';
import { hasRole, type Priority, type TicketDetail, type TicketState } from '../../api/types';
import {
  DueDate,
  dayInputToIso,
  FindingStateBadge,
  isoToDayInput,
  PriorityBadge,
  SeverityBadge,
  TicketStateBadge,
} from '../../components/Badges';
import { DateTime } from '../../components/DateTime';
import { DayInput } from '../../components/DayInput';
import { Fact } from '../../components/Fact';
import { PageSkeleton } from '../../components/PageSkeleton';
import { ErrorAlert, QueryError } from '../../components/QueryError';
import { dayExample } from '../../dates';
import { ticketStateLabel } from '../../labels';
import { EventTimeline } from '../findings/EventTimeline';
import { plural } from '../findings/FindingsTable';
import { LocationCell } from '../findings/location';
import { useAssigneeOptions, useUserName } from './assignees';

export default function TicketDetailPage() {
  const { id = '' } = useParams();
  const ticket = useTicket(id);
  useDocumentTitle(`${ticket.data ? `#${ticket.data.Number} ${ticket.data.Title}` : 'Ticket'} · Rampart`);
  return (
    <Stack gap="lg">
      {ticket.isPending ? (
        <PageSkeleton />
      ) : ticket.isError ? (
        <QueryError error={ticket.error} onRetry={() => ticket.refetch()} />
      ) : (
        <TicketView ticket={ticket.data} />
      )}
    </Stack>
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

      {canChange && allowed.length > 0 && (
        <Group gap="sm" role="group" aria-label="Move ticket">
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
        {canChange && <EditCard key={ticket.UpdatedAt} ticket={ticket} />}
      </SimpleGrid>

      <LinkedFindings ticket={ticket} canChange={canChange} />

      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
        <Comments ticket={ticket} canChange={canChange} />
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

function EditCard({ ticket }: { ticket: TicketDetail }) {
  const update = useUpdateTicket();
  const assignees = useAssigneeOptions(ticket.AssigneeId);
  const [title, setTitle] = useState(ticket.Title);
  const [description, setDescription] = useState(ticket.Description ?? '');
  const [priority, setPriority] = useState<Priority>(ticket.Priority);
  const [assignee, setAssignee] = useState<string | null>(ticket.AssigneeId);
  const [due, setDue] = useState(isoToDayInput(ticket.DueAt));
  const [titleError, setTitleError] = useState<string>();
  const [dueError, setDueError] = useState<string>();

  const field = (path: string) =>
    update.error instanceof ApiError ? update.error.fieldError(path) : undefined;
  const fieldErrors = update.error instanceof ApiError && (update.error.problem.errors?.length ?? 0) > 0;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const trimmed = title.trim();
    setTitleError(trimmed ? undefined : 'Enter a title.');
    // A due date that does not read as a day is said so, never saved as "no due date".
    const badDue = due !== '' && !dayInputToIso(due);
    setDueError(badDue ? `Write the date like ${dayExample()}.` : undefined);
    if (!trimmed || badDue) return;
    // Only what changed: an unchanged due date keeps its exact time.
    const dueIso = due ? dayInputToIso(due, true) : null;
    update.mutate(
      {
        id: ticket.Id,
        ...(trimmed !== ticket.Title && { Title: trimmed }),
        ...((description.trim() || null) !== (ticket.Description || null) && {
          Description: description.trim() || null,
        }),
        ...(priority !== ticket.Priority && { Priority: priority }),
        ...(assignee !== ticket.AssigneeId && { AssigneeId: assignee }),
        ...(due !== isoToDayInput(ticket.DueAt) && { DueAt: dueIso ?? null }),
      },
      { onSuccess: () => notifications.show({ color: 'green', message: 'Ticket saved.' }) },
    );
  };

  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="ticket-edit-title">
      <Title order={2} size="h4" id="ticket-edit-title" mb="sm">
        Edit
      </Title>
      <form onSubmit={submit} noValidate aria-labelledby="ticket-edit-title">
        <Stack gap="sm">
          {!fieldErrors && <ErrorAlert error={update.error} />}
          <TextInput
            label="Title"
            maxLength={500}
            value={title}
            onChange={(e) => setTitle(e.currentTarget.value)}
            error={titleError ?? field('/Title')}
          />
          <Textarea
            label="Description"
            autosize
            minRows={2}
            maxRows={10}
            maxLength={20000}
            value={description}
            onChange={(e) => setDescription(e.currentTarget.value)}
            error={field('/Description')}
          />
          <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="sm">
            <Select
              label="Priority"
              data={[...PRIORITIES]}
              value={priority}
              onChange={(value) => value && setPriority(value as Priority)}
              allowDeselect={false}
            />
            <Select
              label="Assignee"
              placeholder="Nobody"
              data={assignees}
              value={assignee}
              onChange={setAssignee}
              searchable
              clearable
              error={field('/AssigneeId')}
            />
          </SimpleGrid>
          <DayInput
            label="Due date"
            maw={220}
            value={due}
            onChange={(day) => {
              setDue(day);
              setDueError(undefined);
            }}
            error={dueError ?? field('/DueAt')}
          />
          <Group>
            <Button type="submit" loading={update.isPending}>
              Save
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}

function LinkedFindings({ ticket, canChange }: { ticket: TicketDetail; canChange: boolean }) {
  const unlink = useUnlinkFindings(ticket.Id);
  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="ticket-findings-title">
      <Group justify="space-between" mb="sm">
        <Title order={2} size="h4" id="ticket-findings-title">
          Findings
        </Title>
      </Group>
      <ErrorAlert error={unlink.error} />
      {ticket.Findings.length === 0 ? (
        <Text size="sm" c="dimmed">
          No findings are linked to this ticket. Select findings on the Findings page and choose “Add to
          ticket…”.
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={820}>
          <Table striped highlightOnHover verticalSpacing={6} fz="sm">
            <Table.Thead>
              <Table.Tr>
                <Table.Th w={100}>Severity</Table.Th>
                <Table.Th>Title</Table.Th>
                <Table.Th>Asset</Table.Th>
                <Table.Th>Location</Table.Th>
                <Table.Th w={130}>State</Table.Th>
                {canChange && (
                  <Table.Th w={90}>
                    <VisuallyHidden>Actions</VisuallyHidden>
                  </Table.Th>
                )}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {ticket.Findings.map((finding) => (
                <Table.Tr key={finding.Id}>
                  <Table.Td>
                    <SeverityBadge severity={finding.Severity} />
                  </Table.Td>
                  <Table.Td style={{ overflowWrap: 'anywhere' }}>
                    <Anchor component={Link} to={`/findings/${finding.Id}`} size="sm">
                      {finding.Title}
                    </Anchor>
                  </Table.Td>
                  <Table.Td style={{ overflowWrap: 'anywhere' }}>
                    <Anchor component={Link} to={`/assets/${finding.AssetId}`} size="sm">
                      {finding.AssetName}
                    </Anchor>
                  </Table.Td>
                  <Table.Td style={{ overflowWrap: 'anywhere' }}>
                    <LocationCell location={finding.Location} />
                  </Table.Td>
                  <Table.Td>
                    <FindingStateBadge state={finding.State} />
                  </Table.Td>
                  {canChange && (
                    <Table.Td ta="right">
                      <Button
                        size="compact-sm"
                        variant="subtle"
                        color="red"
                        aria-label={`Remove ${finding.Title} from ticket`}
                        loading={unlink.isPending && unlink.variables?.[0] === finding.Id}
                        onClick={() =>
                          unlink.mutate([finding.Id], {
                            onSuccess: () =>
                              notifications.show({ color: 'green', message: `Removed “${finding.Title}”.` }),
                          })
                        }
                      >
                        Remove
                      </Button>
                    </Table.Td>
                  )}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Card>
  );
}

function Comments({ ticket, canChange }: { ticket: TicketDetail; canChange: boolean }) {
  const add = useAddComment(ticket.Id);
  const userName = useUserName();
  const [body, setBody] = useState('');
  const [error, setError] = useState<string>();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const text = body.trim();
    setError(text ? undefined : 'Write a comment first.');
    if (!text) return;
    add.mutate({ Body: text }, { onSuccess: () => setBody('') });
  };

  const comments = [...ticket.Comments].sort((a, b) => a.CreatedAt.localeCompare(b.CreatedAt));

  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="ticket-comments-title">
      <Title order={2} size="h4" id="ticket-comments-title" mb="md">
        Discussion
      </Title>
      <Stack gap="sm">
        {comments.length === 0 && (
          <Text size="sm" c="dimmed">
            No comments yet.
          </Text>
        )}
        {comments.map((comment) => (
          <Paper key={comment.Id} withBorder p="sm" radius="sm" component="article">
            <Text size="xs" c="dimmed" mb={4}>
              {userName(comment.AuthorId) ?? 'Rampart'} · <DateTime value={comment.CreatedAt} />
            </Text>
            <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
              {comment.Body}
            </Text>
          </Paper>
        ))}
        {canChange && (
          <form onSubmit={submit} noValidate>
            <Stack gap="xs">
              <ErrorAlert error={add.error} />
              <Textarea
                label="Comment"
                autosize
                minRows={2}
                maxRows={10}
                maxLength={20000}
                value={body}
                onChange={(e) => setBody(e.currentTarget.value)}
                error={error}
              />
              <Group>
                <Button type="submit" loading={add.isPending}>
                  Add comment
                </Button>
              </Group>
            </Stack>
          </form>
        )}
      </Stack>
    </Card>
  );
}
