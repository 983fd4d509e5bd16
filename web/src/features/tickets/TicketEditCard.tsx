import { Button, Card, Group, Select, SimpleGrid, Stack, Textarea, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { type FormEvent, useState } from 'react';
import { ApiError } from '../../api/client';
import { PRIORITIES, useUpdateTicket } from '../../api/tickets';
import type { Priority, TicketDetail } from '../../api/types';
import { dayInputToIso, isoToDayInput } from '../../components/Badges';
import { DayInput } from '../../components/DayInput';
import { ErrorAlert } from '../../components/QueryError';
import { dayExample } from '../../dates';
import { useAssigneeOptions } from './assignees';

/** The ticket's title, description, priority, assignee and due date, saved as only what changed. */
export function TicketEditCard({ ticket }: { ticket: TicketDetail }) {
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
