import { Divider, Modal, Select, Stack, Text, TextInput } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { ApiError } from '../../api/client';
import { useBulkTicket } from '../../api/findings';
import { OPEN_TICKET_STATES, PRIORITIES, useCreateTicket, useTickets } from '../../api/tickets';
import type { BulkResult, Priority } from '../../api/types';
import { FormButtons } from '../../components/FormButtons';
import { ErrorAlert } from '../../components/QueryError';

interface AddToTicketModalProps {
  opened: boolean;
  onClose: () => void;
  findingIds: string[];
  onDone: (result: BulkResult) => void;
}

export function AddToTicketModal({ opened, onClose, findingIds, onDone }: AddToTicketModalProps) {
  return (
    <Modal opened={opened} onClose={onClose} title="Add to ticket" centered>
      {opened && <AddToTicketForm findingIds={findingIds} onCancel={onClose} onDone={onDone} />}
    </Modal>
  );
}

function AddToTicketForm({
  findingIds,
  onCancel,
  onDone,
}: {
  findingIds: string[];
  onCancel: () => void;
  onDone: (result: BulkResult) => void;
}) {
  const tickets = useTickets(OPEN_TICKET_STATES, 200);
  const create = useCreateTicket();
  const link = useBulkTicket();
  const [ticketId, setTicketId] = useState<string | null>(null);
  const [title, setTitle] = useState('');
  const [priority, setPriority] = useState<Priority>('High');
  const [problem, setProblem] = useState<string>();
  const [error, setError] = useState<unknown>(null);

  const options = (tickets.data?.pages.flatMap((page) => page.Items) ?? []).map((ticket) => ({
    value: ticket.Id,
    label: `#${ticket.Number} ${ticket.Title}`,
  }));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    const newTitle = title.trim();
    if (!ticketId && !newTitle) {
      setProblem('Choose a ticket, or give a title for a new one.');
      return;
    }
    setProblem(undefined);
    try {
      const target = newTitle
        ? (await create.mutateAsync({ Title: newTitle, Priority: priority })).Id
        : ticketId;
      if (!target) return;
      // A new ticket exists now: a failure below must not create a second one on "Link" again.
      if (newTitle) {
        setTicketId(target);
        setTitle('');
      }
      onDone(await link.mutateAsync({ Filter: { Ids: findingIds }, TicketId: target }));
    } catch (cause) {
      setError(cause);
    }
  };

  const titleError = error instanceof ApiError ? error.fieldError('/Title') : undefined;

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="md">
        <Text size="sm">
          Link{' '}
          {findingIds.length === 1 ? 'the selected finding' : `the ${findingIds.length} selected findings`} to
          a ticket, so the work to fix them is tracked in one place.
        </Text>
        {!titleError && <ErrorAlert error={error} />}
        <Select
          label="Ticket"
          placeholder={tickets.isPending ? 'Loading tickets…' : 'Choose an open ticket'}
          data={options}
          value={ticketId}
          onChange={(value) => {
            setTicketId(value);
            if (value) setTitle('');
          }}
          searchable
          clearable
          nothingFoundMessage="No open ticket matches"
          error={tickets.isError ? 'Could not load the tickets.' : problem}
          data-autofocus
        />
        <Divider label="or create a new ticket" labelPosition="center" />
        <TextInput
          label="New ticket title"
          maxLength={500}
          value={title}
          onChange={(e) => {
            setTitle(e.currentTarget.value);
            if (e.currentTarget.value) setTicketId(null);
          }}
          error={titleError}
        />
        <Select
          label="Priority"
          data={[...PRIORITIES]}
          value={priority}
          onChange={(value) => value && setPriority(value as Priority)}
          allowDeselect={false}
        />
        <FormButtons onCancel={onCancel} pending={create.isPending || link.isPending} submit="Link" />
      </Stack>
    </form>
  );
}
