import { Alert, Button, Group, Modal, Select, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { type FormEvent, useState } from 'react';
import { useResetUserMfa } from '../../api/mfa';
import { ROLES, type Role, type User } from '../../api/types';
import { useResetPassword, useUpdateUser } from '../../api/users';
import { CopyValue } from '../../components/CopyValue';
import { DoneButton } from '../../components/DoneButton';
import { FormButtons } from '../../components/FormButtons';
import { ErrorAlert } from '../../components/QueryError';
import { IconAlertTriangle } from '../../icons';
import { options, ROLE_LABELS, roleLabel } from '../../labels';

export interface UserAction {
  kind: 'role' | 'deactivate' | 'reactivate' | 'reset' | 'mfa';
  user: User;
}

const TITLES: Record<UserAction['kind'], string> = {
  role: 'Change role',
  deactivate: 'Deactivate user',
  reactivate: 'Reactivate user',
  reset: 'Reset password',
  mfa: 'Reset two-step verification',
};

/** One dialog for the actions of a user's row menu. */
export function UserActionModal({
  action,
  opened,
  onClose,
}: {
  action: UserAction;
  opened: boolean;
  onClose: () => void;
}) {
  const { kind, user } = action;
  return (
    // A stray click must not throw away a password that cannot be shown again.
    <Modal
      opened={opened}
      onClose={onClose}
      title={TITLES[kind]}
      centered
      closeOnClickOutside={kind !== 'reset'}
    >
      {/* Mounted afresh for each opening, so no answer or error carries over. */}
      {kind === 'role' && <ChangeRole user={user} onDone={onClose} />}
      {(kind === 'deactivate' || kind === 'reactivate') && (
        <SetActive user={user} active={kind === 'reactivate'} onDone={onClose} />
      )}
      {kind === 'reset' && <ResetPassword user={user} onDone={onClose} />}
      {kind === 'mfa' && <ResetMfa user={user} onDone={onClose} />}
    </Modal>
  );
}

function who(user: User): string {
  return user.Name === user.Email ? user.Email : `${user.Name} (${user.Email})`;
}

function ChangeRole({ user, onDone }: { user: User; onDone: () => void }) {
  const update = useUpdateUser();
  const [role, setRole] = useState<Role>(user.Role);

  const save = (event: FormEvent) => {
    event.preventDefault();
    if (role === user.Role) return onDone();
    update.mutate(
      { id: user.Id, Role: role },
      {
        onSuccess: (changed) => {
          notifications.show({
            color: 'green',
            message: `${changed.Email} is now ${roleLabel(changed.Role)}.`,
          });
          onDone();
        },
      },
    );
  };

  return (
    <form onSubmit={save} noValidate>
      <Stack gap="md">
        <Text size="sm">Choose the role of {who(user)}. The change applies to their next request.</Text>
        <Select
          label="Role"
          data={options(ROLES, ROLE_LABELS)}
          value={role}
          onChange={(value) => value && setRole(value as Role)}
          allowDeselect={false}
          data-autofocus
        />
        <ErrorAlert error={update.error} />
        <FormButtons onCancel={onDone} pending={update.isPending} submit="Save" />
      </Stack>
    </form>
  );
}

function SetActive({ user, active, onDone }: { user: User; active: boolean; onDone: () => void }) {
  const update = useUpdateUser();
  const confirm = () =>
    update.mutate(
      { id: user.Id, Active: active },
      {
        onSuccess: (changed) => {
          notifications.show({
            color: 'green',
            message: `${changed.Email} ${changed.Active ? 'reactivated' : 'deactivated'}.`,
          });
          onDone();
        },
      },
    );

  return (
    <Stack gap="md">
      {active ? (
        <Text size="sm">Reactivate {who(user)}? They can sign in again.</Text>
      ) : (
        <Text size="sm">
          Deactivate {who(user)}? They are signed out at once, their sessions and API keys stop working, and
          they cannot sign in until an Admin reactivates them.
        </Text>
      )}
      <ErrorAlert error={update.error} />
      <Group justify="flex-end" gap="sm">
        <Button variant="default" onClick={onDone}>
          Cancel
        </Button>
        <Button
          color={active ? undefined : 'red'}
          loading={update.isPending}
          onClick={confirm}
          data-autofocus
        >
          {active ? 'Reactivate' : 'Deactivate'}
        </Button>
      </Group>
    </Stack>
  );
}

function ResetPassword({ user, onDone }: { user: User; onDone: () => void }) {
  const reset = useResetPassword();
  const password = reset.data?.Password;

  if (password) {
    return (
      <Stack gap="md">
        <Alert color="yellow" variant="light" icon={<IconAlertTriangle />}>
          Copy the new password now: it is shown only once.
        </Alert>
        <Text size="sm">
          Give it to {who(user)} through a safe channel. They should change it after they sign in.
        </Text>
        <CopyValue
          label="Temporary password"
          value={password}
          copyLabel="Copy password"
          testId="reset-password"
        />
        <DoneButton onDone={onDone} />
      </Stack>
    );
  }

  return (
    <Stack gap="md">
      <Text size="sm">
        Reset the password of {who(user)}? Rampart generates a temporary password and shows it to you once.
        Their current password stops working and their sessions end.
      </Text>
      <ErrorAlert error={reset.error} />
      <Group justify="flex-end" gap="sm">
        <Button variant="default" onClick={onDone}>
          Cancel
        </Button>
        <Button color="red" loading={reset.isPending} onClick={() => reset.mutate(user.Id)} data-autofocus>
          Reset password
        </Button>
      </Group>
    </Stack>
  );
}

function ResetMfa({ user, onDone }: { user: User; onDone: () => void }) {
  const reset = useResetUserMfa();
  const confirm = () =>
    reset.mutate(user.Id, {
      onSuccess: () => {
        notifications.show({ color: 'green', message: `Two-step verification of ${user.Email} was reset.` });
        onDone();
      },
    });
  return (
    <Stack gap="md">
      <Text size="sm">
        Reset the two-step verification of {who(user)}? Use this when they lost their device and their
        recovery codes. Their authenticator and recovery codes stop working and they are signed out
        everywhere; they set up a new device in My profile, or at their next sign-in when your organisation
        requires it.
      </Text>
      <ErrorAlert error={reset.error} />
      <Group justify="flex-end" gap="sm">
        <Button variant="default" onClick={onDone}>
          Cancel
        </Button>
        <Button color="red" loading={reset.isPending} onClick={confirm} data-autofocus>
          Reset two-step verification
        </Button>
      </Group>
    </Stack>
  );
}
