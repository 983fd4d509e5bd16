import { Alert, Modal, Select, Stack, Text, TextInput } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { useCreateApiKey } from '../../api/apikeys';
import { ApiError } from '../../api/client';
import { baseUrlOf, useStatus } from '../../api/status';
import type { CreatedApiKey } from '../../api/types';
import { CopyValue } from '../../components/CopyValue';
import { DateTime } from '../../components/DateTime';
import { DoneButton } from '../../components/DoneButton';
import { FormButtons } from '../../components/FormButtons';
import { ErrorAlert } from '../../components/QueryError';
import { IconAlertTriangle } from '../../icons';

const EXPIRY_OPTIONS = [
  { value: 'never', label: 'Never' },
  { value: '30', label: 'In 30 days' },
  { value: '90', label: 'In 90 days' },
  { value: '365', label: 'In 1 year' },
];

const NAME_MAX = 100;

export function AddApiKeyModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const create = useCreateApiKey();
  const created = create.data;

  // Forgetting the mutation's answer is what removes the secret from memory and from the screen.
  const close = () => {
    create.reset();
    onClose();
  };

  return (
    <Modal
      opened={opened}
      onClose={close}
      title="Add API key"
      size="lg"
      centered
      // A stray click must not throw away a secret that cannot be shown again.
      closeOnClickOutside={!created}
    >
      {created ? (
        <CreatedKey apiKey={created} onDone={close} />
      ) : (
        <AddKeyForm
          pending={create.isPending}
          error={create.error}
          onCancel={close}
          onSubmit={(body) => create.mutate(body)}
        />
      )}
    </Modal>
  );
}

interface AddKeyFormProps {
  pending: boolean;
  error: unknown;
  onCancel: () => void;
  onSubmit: (body: { Name: string; ExpiresInDays?: number }) => void;
}

function AddKeyForm({ pending, error, onCancel, onSubmit }: AddKeyFormProps) {
  const [name, setName] = useState('');
  const [expires, setExpires] = useState('never');
  const [nameError, setNameError] = useState<string>();

  const serverNameError = error instanceof ApiError ? error.fieldError('/Name') : undefined;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const trimmed = name.trim();
    const problem = !trimmed
      ? 'Enter a name for the key.'
      : trimmed.length > NAME_MAX
        ? `Use at most ${NAME_MAX} characters.`
        : undefined;
    setNameError(problem);
    if (problem) return;
    onSubmit({ Name: trimmed, ExpiresInDays: expires === 'never' ? undefined : Number(expires) });
  };

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="md">
        {!serverNameError && <ErrorAlert error={error} />}
        <TextInput
          label="Name"
          description="Where the key is used, so you recognise it later, e.g. “CI pipeline”."
          required
          maxLength={NAME_MAX}
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          error={nameError ?? serverNameError}
          data-autofocus
        />
        <Select
          label="Expires"
          data={EXPIRY_OPTIONS}
          value={expires}
          onChange={(value) => setExpires(value ?? 'never')}
          allowDeselect={false}
          comboboxProps={{ withinPortal: true }}
        />
        <FormButtons onCancel={onCancel} pending={pending} submit="Create key" />
      </Stack>
    </form>
  );
}

function CreatedKey({ apiKey, onDone }: { apiKey: CreatedApiKey; onDone: () => void }) {
  const status = useStatus();
  const curl =
    `curl -s ${baseUrlOf(status.data)}/api/integration/authenticationcheck` +
    ` -H "ApiAccessKey: ${apiKey.AccessKey}" -H "ApiSecretKey: ${apiKey.SecretKey}"`;

  return (
    <Stack gap="md">
      <Alert color="yellow" variant="light" icon={<IconAlertTriangle />}>
        Store the secret key safely now: it is shown only once.
      </Alert>
      <Text size="sm">
        Key “{apiKey.Name}” created.{' '}
        {apiKey.ExpiresAt ? (
          <>
            It expires on <DateTime value={apiKey.ExpiresAt} />.
          </>
        ) : (
          'It does not expire.'
        )}
      </Text>
      <CopyValue
        label="Access key"
        value={apiKey.AccessKey}
        copyLabel="Copy access key"
        testId="new-access-key"
      />
      <CopyValue
        label="Secret key"
        value={apiKey.SecretKey}
        copyLabel="Copy secret key"
        testId="new-secret-key"
      />
      <CopyValue
        label="Try it: this command answers “Authenticated”"
        value={curl}
        copyLabel="Copy curl command"
        testId="new-curl"
        block
      />
      <DoneButton onDone={onDone} />
    </Stack>
  );
}
