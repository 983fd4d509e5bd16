import {
  Alert,
  Badge,
  Button,
  Card,
  Group,
  Modal,
  PasswordInput,
  SegmentedControl,
  Skeleton,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { type FormEvent, useState } from 'react';
import { ApiError } from '../../api/client';
import {
  useConfirmMfaEnrolment,
  useDisableMfa,
  useMfaStatus,
  useRegenerateRecoveryCodes,
  useStartMfaEnrolment,
} from '../../api/mfa';
import type { MfaStatus } from '../../api/types';
import { DateTime } from '../../components/DateTime';
import { DoneButton } from '../../components/DoneButton';
import { FormButtons } from '../../components/FormButtons';
import { ErrorAlert, QueryError } from '../../components/QueryError';
import { IconInfoCircle, IconShieldCheck } from '../../icons';
import { RecoveryCodesList } from './RecoveryCodesList';
import { TotpSetup } from './TotpSetup';

/** Two-step verification in My profile: set up, replace, new recovery codes, turn off. */
export function MfaSection() {
  const status = useMfaStatus();
  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="mfa-title" id="two-step">
      <Title order={2} size="h4" id="mfa-title">
        Two-step verification
      </Title>
      <Text size="sm" c="dimmed" mb="md">
        After your password, sign-in asks for a code from an authenticator app on your phone, so a stolen
        password is not enough. API keys are not affected.
      </Text>
      {status.isPending ? (
        <Skeleton height={60} maw={420} role="status" aria-label="Loading two-step verification" />
      ) : status.isError ? (
        <QueryError error={status.error} onRetry={() => status.refetch()} />
      ) : (
        <MfaPanel status={status.data} />
      )}
    </Card>
  );
}

type Dialog = 'codes' | 'disable' | null;

function MfaPanel({ status }: { status: MfaStatus }) {
  const start = useStartMfaEnrolment();
  const confirm = useConfirmMfaEnrolment();
  const [dialog, setDialog] = useState<Dialog>(null);
  const [newCodes, setNewCodes] = useState<string[] | null>(null);

  if (!status.PasswordUser)
    return (
      <Text size="sm">
        Your account signs in without a password, so two-step verification does not apply.
      </Text>
    );

  const codes = confirm.data?.RecoveryCodes ?? newCodes;
  if (codes)
    return (
      <Stack gap="md" maw={520}>
        {confirm.data && (
          <Text size="sm" fw={500}>
            Two-step verification is on. Sign-in now asks for a code from your app.
          </Text>
        )}
        <RecoveryCodesList codes={codes} />
        <DoneButton
          onDone={() => {
            confirm.reset();
            start.reset();
            setNewCodes(null);
          }}
        />
      </Stack>
    );

  if (start.data)
    return (
      <Stack gap="sm" maw={520}>
        {status.Enabled && (
          <Text size="sm">The new device replaces the current one once you confirm its code.</Text>
        )}
        <TotpSetup
          enrolment={start.data}
          pending={confirm.isPending}
          error={confirm.isError ? confirmError(confirm.error) : undefined}
          onConfirm={(code) => confirm.mutate({ Code: code })}
          onCancel={() => {
            start.reset();
            confirm.reset();
          }}
          submit={status.Enabled ? 'Confirm new device' : 'Turn on'}
        />
      </Stack>
    );

  return (
    <Stack gap="sm" maw={560}>
      {status.Enabled ? (
        <Group gap="xs">
          <Badge color="green" variant="light" leftSection={<IconShieldCheck size={14} />}>
            On
          </Badge>
          <Text size="sm">
            since <DateTime value={status.EnabledAt} /> · {status.RecoveryCodesLeft} of 10 recovery codes left
          </Text>
        </Group>
      ) : (
        <Group gap="xs">
          <Badge color="gray" variant="light">
            Off
          </Badge>
          {status.Required && (
            <Text size="sm" c="orange">
              Your organisation requires it: you will be asked to set it up at your next sign-in.
            </Text>
          )}
        </Group>
      )}
      {status.Enabled && status.RecoveryCodesLeft <= 3 && (
        <Alert color="yellow" variant="light" icon={<IconInfoCircle />}>
          Few recovery codes are left: make new ones.
        </Alert>
      )}
      <ErrorAlert error={start.error} />
      <Group gap="sm">
        <Button loading={start.isPending} onClick={() => start.mutate()}>
          {status.Enabled ? 'Set up a new device' : 'Set up two-step verification'}
        </Button>
        {status.Enabled && (
          <>
            <Button variant="default" onClick={() => setDialog('codes')}>
              New recovery codes
            </Button>
            <Button
              variant="light"
              color="red"
              disabled={status.Required}
              onClick={() => setDialog('disable')}
            >
              Turn off
            </Button>
          </>
        )}
      </Group>
      {status.Enabled && status.Required && (
        <Text size="xs" c="dimmed">
          Your organisation requires two-step verification, so it cannot be turned off; a new device replaces
          the current one.
        </Text>
      )}
      <Modal
        opened={dialog !== null}
        onClose={() => setDialog(null)}
        title={dialog === 'disable' ? 'Turn off two-step verification' : 'New recovery codes'}
        centered
      >
        {dialog && (
          <ProofForm
            kind={dialog}
            onDone={(codesMade) => {
              setDialog(null);
              if (codesMade) setNewCodes(codesMade);
            }}
          />
        )}
      </Modal>
    </Stack>
  );
}

function confirmError(error: unknown): string {
  if (error instanceof ApiError) return error.fieldError('/Code') ?? error.detail;
  return 'The code could not be checked.';
}

/** Your password or a current code, before turning off or making new recovery codes. */
function ProofForm({ kind, onDone }: { kind: 'codes' | 'disable'; onDone: (codes?: string[]) => void }) {
  const disable = useDisableMfa();
  const regenerate = useRegenerateRecoveryCodes();
  const mutation = kind === 'disable' ? disable : regenerate;
  const [with_, setWith] = useState<'Password' | 'Code'>('Password');
  const [value, setValue] = useState('');
  const [fieldError, setFieldError] = useState<string | undefined>();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!value) {
      setFieldError(with_ === 'Password' ? 'Enter your password.' : 'Enter the 6-digit code.');
      return;
    }
    setFieldError(undefined);
    const body = with_ === 'Password' ? { Password: value } : { Code: value.replace(/\s/g, '') };
    const onError = (error: unknown) => {
      if (error instanceof ApiError) setFieldError(error.fieldError(`/${with_}`));
      setValue('');
    };
    if (kind === 'disable')
      disable.mutate(body, {
        onSuccess: () => {
          notifications.show({ color: 'green', message: 'Two-step verification is off.' });
          onDone();
        },
        onError,
      });
    else regenerate.mutate(body, { onSuccess: (answer) => onDone(answer.RecoveryCodes), onError });
  };

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="md">
        <Text size="sm">
          {kind === 'disable'
            ? 'Sign-in will ask for your password only. Confirm it is you:'
            : 'Your current recovery codes stop working. Confirm it is you:'}
        </Text>
        <SegmentedControl
          value={with_}
          onChange={(v) => {
            setWith(v as 'Password' | 'Code');
            setValue('');
            setFieldError(undefined);
          }}
          data={[
            { value: 'Password', label: 'Password' },
            { value: 'Code', label: 'Code from the app' },
          ]}
        />
        {with_ === 'Password' ? (
          <PasswordInput
            label="Your password"
            autoComplete="current-password"
            value={value}
            onChange={(e) => setValue(e.currentTarget.value)}
            error={fieldError}
            data-autofocus
          />
        ) : (
          <TextInput
            label="Code from the app"
            autoComplete="one-time-code"
            inputMode="numeric"
            value={value}
            onChange={(e) => setValue(e.currentTarget.value)}
            error={fieldError}
            data-autofocus
          />
        )}
        {!fieldError && <ErrorAlert error={mutation.error} />}
        <FormButtons
          onCancel={() => onDone()}
          pending={mutation.isPending}
          submit={kind === 'disable' ? 'Turn off' : 'Make new codes'}
        />
      </Stack>
    </form>
  );
}
