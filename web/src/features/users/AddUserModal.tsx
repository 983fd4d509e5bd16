import { Modal, PasswordInput, Select, Stack, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { type FormEvent, useState } from 'react';
import { ApiError } from '../../api/client';
import { ROLES, type Role } from '../../api/types';
import { useCreateUser } from '../../api/users';
import { FormButtons } from '../../components/FormButtons';
import { ErrorAlert } from '../../components/QueryError';
import { options, ROLE_LABELS } from '../../labels';

const PASSWORD_MIN = 12;

interface FieldErrors {
  email?: string;
  name?: string;
  role?: string;
  password?: string;
}

export function AddUserModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  return (
    <Modal opened={opened} onClose={onClose} title="Add user" centered>
      <AddUserForm onDone={onClose} />
    </Modal>
  );
}

// Inside the modal, so that it starts empty each time the modal opens.
function AddUserForm({ onDone }: { onDone: () => void }) {
  const create = useCreateUser();
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  // The least rights by default: an Admin raises them on purpose.
  const [role, setRole] = useState<Role>('ReadOnly');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<unknown>(null);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const trimmedEmail = email.trim();
    const found: FieldErrors = {
      email: !trimmedEmail
        ? 'Enter an email address.'
        : /^[^\s@]+@[^\s@]+$/.test(trimmedEmail)
          ? undefined
          : 'Enter a valid email address.',
      password:
        password && password.length < PASSWORD_MIN ? `Use at least ${PASSWORD_MIN} characters.` : undefined,
    };
    setErrors(found);
    setFormError(null);
    if (found.email || found.password) return;

    create.mutate(
      { Email: trimmedEmail, Name: name.trim() || undefined, Role: role, Password: password || undefined },
      {
        onSuccess: (user) => {
          notifications.show({ color: 'green', message: `User ${user.Email} created.` });
          onDone();
        },
        onError: (error) => {
          const byField: FieldErrors = {};
          if (error instanceof ApiError) {
            byField.email = error.fieldError('/Email');
            byField.name = error.fieldError('/Name');
            byField.role = error.fieldError('/Role');
            byField.password = error.fieldError('/Password');
          }
          setErrors(byField);
          if (!Object.values(byField).some(Boolean)) setFormError(error);
        },
      },
    );
  };

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="md">
        <ErrorAlert error={formError} />
        <TextInput
          label="Email"
          type="email"
          required
          autoComplete="off"
          spellCheck={false}
          value={email}
          onChange={(e) => setEmail(e.currentTarget.value)}
          error={errors.email}
          data-autofocus
        />
        <TextInput
          label="Name"
          description="Optional. Without one, the part of the email before the @ is used."
          autoComplete="off"
          maxLength={200}
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          error={errors.name}
        />
        <Select
          label="Role"
          required
          data={options(ROLES, ROLE_LABELS)}
          value={role}
          onChange={(value) => value && setRole(value as Role)}
          allowDeselect={false}
          error={errors.role}
        />
        <PasswordInput
          label="Initial password"
          description={`Optional, at least ${PASSWORD_MIN} characters. Without one, the user cannot sign in until you reset their password.`}
          autoComplete="new-password"
          value={password}
          onChange={(e) => setPassword(e.currentTarget.value)}
          error={errors.password}
        />
        <FormButtons onCancel={onDone} pending={create.isPending} submit="Create user" />
      </Stack>
    </form>
  );
}
