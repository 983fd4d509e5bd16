import { Alert, Modal, Stack, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { type FormEvent, useState } from 'react';
import { ApiError } from '../../api/client';
import { useCreateOrganization } from '../../api/installation';
import type { CreatedOrganization } from '../../api/types';
import { CopyValue } from '../../components/CopyValue';
import { DoneButton } from '../../components/DoneButton';
import { FormButtons } from '../../components/FormButtons';
import { NameInput } from '../../components/NameInput';
import { ErrorAlert } from '../../components/QueryError';
import { IconAlertTriangle } from '../../icons';

interface FieldErrors {
  name?: string;
  adminEmail?: string;
}

export function NewOrganizationModal({
  opened,
  onClose,
  you,
}: {
  opened: boolean;
  onClose: () => void;
  /** The installation Admin's email: the new organisation's Admin by default. */
  you: string;
}) {
  // Once a password is on screen, a stray click must not throw it away.
  const [showingSecret, setShowingSecret] = useState(false);
  const close = () => {
    setShowingSecret(false);
    onClose();
  };
  return (
    <Modal
      opened={opened}
      onClose={close}
      title="New organisation"
      centered
      closeOnClickOutside={!showingSecret}
    >
      {/* Inside the modal, so that it starts empty each time the modal opens. */}
      <NewOrganizationForm onDone={close} you={you} onSecret={() => setShowingSecret(true)} />
    </Modal>
  );
}

function NewOrganizationForm({
  onDone,
  you,
  onSecret,
}: {
  onDone: () => void;
  you: string;
  onSecret: () => void;
}) {
  const create = useCreateOrganization();
  const [name, setName] = useState('');
  const [adminEmail, setAdminEmail] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<unknown>(null);
  const [created, setCreated] = useState<CreatedOrganization | null>(null);

  if (created?.AdminPassword) {
    return (
      <Stack gap="md">
        <Text size="sm">
          <strong>{created.Organization.Name}</strong> is ready. Its Admin, {created.Admin.Email}, is new to
          Rampart and signs in with this password.
        </Text>
        <Alert color="yellow" variant="light" icon={<IconAlertTriangle />}>
          Copy the password now: it is shown only once.
        </Alert>
        <Text size="sm">
          Give it to {created.Admin.Email} through a safe channel. They should change it after they sign in.
        </Text>
        <CopyValue
          label="Temporary password"
          value={created.AdminPassword}
          copyLabel="Copy password"
          testId="new-organization-password"
        />
        <DoneButton onDone={onDone} />
      </Stack>
    );
  }

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const trimmedName = name.trim();
    const trimmedEmail = adminEmail.trim();
    const found: FieldErrors = {
      name: trimmedName ? undefined : 'Enter a name.',
      adminEmail:
        !trimmedEmail || /^[^\s@]+@[^\s@]+$/.test(trimmedEmail) ? undefined : 'Enter a valid email address.',
    };
    setErrors(found);
    setFormError(null);
    if (found.name || found.adminEmail) return;

    create.mutate(
      { Name: trimmedName, ...(trimmedEmail ? { AdminEmail: trimmedEmail } : {}) },
      {
        onSuccess: (answer) => {
          if (answer.AdminPassword) {
            setCreated(answer);
            onSecret();
            return;
          }
          notifications.show({
            color: 'green',
            message: `${answer.Organization.Name} created; ${answer.Admin.Email} is its Admin.`,
          });
          onDone();
        },
        onError: (error) => {
          const byField: FieldErrors = {};
          if (error instanceof ApiError) {
            byField.name = error.fieldError('/Name');
            byField.adminEmail = error.fieldError('/AdminEmail');
            // A name taken already (409) is about the name.
            if (error.status === 409) byField.name = error.detail;
          }
          setErrors(byField);
          if (!byField.name && !byField.adminEmail) setFormError(error);
        },
      },
    );
  };

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="md">
        <ErrorAlert error={formError} />
        <NameInput value={name} onChange={setName} error={errors.name} />
        <TextInput
          label="Admin email"
          description={`Optional; without one, you (${you}) are its Admin. Someone new to Rampart gets a generated password, shown to you once; a person of another organisation keeps their own.`}
          type="email"
          autoComplete="off"
          spellCheck={false}
          maxLength={320}
          value={adminEmail}
          onChange={(e) => setAdminEmail(e.currentTarget.value)}
          error={errors.adminEmail}
        />
        <FormButtons onCancel={onDone} pending={create.isPending} submit="Create organisation" />
      </Stack>
    </form>
  );
}
