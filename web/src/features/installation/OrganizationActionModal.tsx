import { Button, Group, List, Modal, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { type FormEvent, useState } from 'react';
import { ApiError } from '../../api/client';
import { useUpdateOrganization } from '../../api/installation';
import type { InstallationOrganization } from '../../api/types';
import { FormButtons } from '../../components/FormButtons';
import { NameInput } from '../../components/NameInput';
import { ErrorAlert } from '../../components/QueryError';
import { counted } from '../../labels';

export interface OrganizationAction {
  kind: 'rename' | 'deactivate' | 'reactivate';
  organization: InstallationOrganization;
}

const TITLES: Record<OrganizationAction['kind'], string> = {
  rename: 'Rename organisation',
  deactivate: 'Deactivate organisation',
  reactivate: 'Reactivate organisation',
};

/** One dialog for the actions of an organisation's row menu. */
export function OrganizationActionModal({
  action,
  opened,
  onClose,
  current,
}: {
  action: OrganizationAction;
  opened: boolean;
  onClose: () => void;
  /** Whether it is the organisation the installation Admin is working in. */
  current: boolean;
}) {
  const { kind, organization } = action;
  return (
    <Modal opened={opened} onClose={onClose} title={TITLES[kind]} centered>
      {/* Mounted afresh for each opening, so no answer or error carries over. */}
      {kind === 'rename' && <Rename organization={organization} onDone={onClose} />}
      {kind !== 'rename' && (
        <SetActive
          organization={organization}
          active={kind === 'reactivate'}
          current={current}
          onDone={onClose}
        />
      )}
    </Modal>
  );
}

function Rename({ organization, onDone }: { organization: InstallationOrganization; onDone: () => void }) {
  const update = useUpdateOrganization();
  const [name, setName] = useState(organization.Name);
  const [error, setError] = useState<string | undefined>();

  const save = (event: FormEvent) => {
    event.preventDefault();
    const trimmed = name.trim();
    if (!trimmed) return setError('Enter a name.');
    setError(undefined);
    if (trimmed === organization.Name) return onDone();
    update.mutate(
      { id: organization.Id, Name: trimmed },
      {
        onSuccess: (changed) => {
          notifications.show({ color: 'green', message: `${organization.Name} is now ${changed.Name}.` });
          onDone();
        },
        onError: (failure) => {
          if (failure instanceof ApiError)
            setError(failure.fieldError('/Name') ?? (failure.status === 409 ? failure.detail : undefined));
        },
      },
    );
  };

  return (
    <form onSubmit={save} noValidate>
      <Stack gap="md">
        <Text size="sm">
          Its people see the new name in the header and in their list of organisations; its data, users and
          API keys stay as they are.
        </Text>
        <NameInput value={name} onChange={setName} error={error} />
        {/* Errors not about the name (e.g. no connection) show here. */}
        {!error && <ErrorAlert error={update.error} />}
        <FormButtons onCancel={onDone} pending={update.isPending} submit="Rename" />
      </Stack>
    </form>
  );
}

function SetActive({
  organization,
  active,
  current,
  onDone,
}: {
  organization: InstallationOrganization;
  active: boolean;
  current: boolean;
  onDone: () => void;
}) {
  const update = useUpdateOrganization();
  const confirm = () =>
    update.mutate(
      { id: organization.Id, Active: active },
      {
        onSuccess: (changed) => {
          notifications.show({
            color: 'green',
            message: `${changed.Name} ${changed.Active ? 'reactivated' : 'deactivated'}.`,
          });
          onDone();
        },
      },
    );

  return (
    <Stack gap="md">
      {active ? (
        <Text size="sm">
          Reactivate <strong>{organization.Name}</strong>? Its people can sign in to it again and its API keys
          work again; its schedules resume.
        </Text>
      ) : (
        <>
          <Text size="sm">
            Deactivate <strong>{organization.Name}</strong> ({counted(organization.Members, 'member')})?
          </Text>
          <List size="sm" spacing={4}>
            <List.Item>
              Everyone signed in to it is signed out at once, and nobody can sign in to it.
            </List.Item>
            <List.Item>Its API keys stop working and its scheduled scans and reports wait.</List.Item>
            <List.Item>
              Its data is kept: assets, findings, tickets, users and settings come back as they were when you
              reactivate it.
            </List.Item>
          </List>
          {current && (
            <Text size="sm" c="red">
              You are working in this organisation: switch to another one first.
            </Text>
          )}
        </>
      )}
      <ErrorAlert error={update.error} />
      <Group justify="flex-end" gap="sm">
        <Button variant="default" onClick={onDone}>
          Cancel
        </Button>
        <Button
          color={active ? undefined : 'red'}
          loading={update.isPending}
          // The server refuses it too (409): the session would end with the organisation.
          disabled={!active && current}
          onClick={confirm}
          data-autofocus
        >
          {active ? 'Reactivate' : 'Deactivate'}
        </Button>
      </Group>
    </Stack>
  );
}
