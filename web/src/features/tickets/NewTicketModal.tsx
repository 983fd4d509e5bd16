import { Group, Modal, Select, Stack, Textarea, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { type FormEvent, useState } from 'react';
import { ApiError } from '../../api/client';
import { PRIORITIES, useCreateTicket } from '../../api/tickets';
import type { Priority } from '../../api/types';
import { dayInputToIso } from '../../components/Badges';
import { DayInput } from '../../components/DayInput';
import { FormButtons } from '../../components/FormButtons';
import { ErrorAlert } from '../../components/QueryError';
import { dayExample } from '../../dates';
import { useAssigneeOptions } from './assignees';

export function NewTicketModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  return (
    <Modal opened={opened} onClose={onClose} title="New ticket" centered size="lg">
      {opened && <NewTicketForm onDone={onClose} />}
    </Modal>
  );
}

function NewTicketForm({ onDone }: { onDone: () => void }) {
  const create = useCreateTicket();
  const assignees = useAssigneeOptions();
  const [title, setTitle] = useState('');
  const [description, setDescription] = useState('');
  const [priority, setPriority] = useState<Priority>('Medium');
  const [assignee, setAssignee] = useState<string | null>(null);
  const [due, setDue] = useState('');
  const [errors, setErrors] = useState<{ title?: string; due?: string }>({});

  const field = (path: string) =>
    create.error instanceof ApiError ? create.error.fieldError(path) : undefined;
  const fieldErrors = create.error instanceof ApiError && (create.error.problem.errors?.length ?? 0) > 0;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const trimmed = title.trim();
    const found = {
      title: trimmed ? undefined : 'Enter a title.',
      due: due && !dayInputToIso(due) ? `Write the date like ${dayExample()}.` : undefined,
    };
    setErrors(found);
    if (found.title || found.due) return;
    create.mutate(
      {
        Title: trimmed,
        Description: description.trim() || undefined,
        Priority: priority,
        AssigneeId: assignee ?? undefined,
        DueAt: due ? dayInputToIso(due, true) : undefined,
      },
      {
        onSuccess: (ticket) => {
          notifications.show({ color: 'green', message: `Ticket #${ticket.Number} created.` });
          onDone();
        },
      },
    );
  };

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="md">
        {!fieldErrors && <ErrorAlert error={create.error} />}
        <TextInput
          label="Title"
          required
          maxLength={500}
          value={title}
          onChange={(e) => setTitle(e.currentTarget.value)}
          error={errors.title ?? field('/Title')}
          data-autofocus
        />
        <Textarea
          label="Description"
          description="Optional. What needs doing, and how to tell it is done."
          autosize
          minRows={3}
          maxRows={12}
          maxLength={20000}
          value={description}
          onChange={(e) => setDescription(e.currentTarget.value)}
          error={field('/Description')}
        />
        <Group grow align="flex-start">
          <Select
            label="Priority"
            data={[...PRIORITIES]}
            value={priority}
            onChange={(value) => value && setPriority(value as Priority)}
            allowDeselect={false}
          />
          <Select
            label="Assignee"
            placeholder="Nobody yet"
            data={assignees}
            value={assignee}
            onChange={setAssignee}
            searchable
            clearable
            error={field('/AssigneeId')}
          />
          <DayInput
            label="Due date"
            value={due}
            onChange={(day) => {
              setDue(day);
              setErrors((found) => ({ ...found, due: undefined }));
            }}
            error={errors.due ?? field('/DueAt')}
          />
        </Group>
        <FormButtons onCancel={onDone} pending={create.isPending} submit="Create ticket" />
      </Stack>
    </form>
  );
}
