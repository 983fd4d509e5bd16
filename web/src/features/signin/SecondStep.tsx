import { Alert, Anchor, Button, Group, Loader, Stack, Text, TextInput, Title } from '@mantine/core';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { ApiError } from '../../api/client';
import {
  startSession,
  useSignInConfirmEnrolment,
  useSignInSecondFactor,
  useSignInStartEnrolment,
} from '../../api/session';
import type { SecondStep, Session } from '../../api/types';
import { IconAlertCircle } from '../../icons';
import { RecoveryCodesList } from '../profile/RecoveryCodesList';
import { TotpSetup } from '../profile/TotpSetup';
import { signInFailure } from './failure';

interface StepProps {
  challenge: SecondStep;
  /** Back to the password step, with why (null: the user chose to). */
  onRestart: (why: string | null) => void;
  /** Called once the session has started (it is in place already), e.g. to move on after a switch. */
  onSignedIn?: (session: Session) => void;
  /** The words of the way back (default "Start over"): "Cancel" when switching organisation. */
  restartLabel?: string;
}

/** A sign-in that expired, or was spent by wrong codes, starts again from the password. */
function expired(error: unknown): error is ApiError {
  return error instanceof ApiError && error.problem.type?.endsWith('/sign-in-challenge-expired') === true;
}

/** The second step of a sign-in: the code of the authenticator app, or a recovery code. */
export function SecondFactorStep({
  challenge,
  onRestart,
  onSignedIn,
  restartLabel = 'Start over',
}: StepProps) {
  const verify = useSignInSecondFactor();
  const [recovery, setRecovery] = useState(false);
  const [code, setCode] = useState('');
  const [missing, setMissing] = useState<string | undefined>();
  const inputRef = useRef<HTMLInputElement>(null);

  // biome-ignore lint/correctness/useExhaustiveDependencies: focus again when the kind of code changes
  useEffect(() => inputRef.current?.focus(), [recovery]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!code.trim()) {
      setMissing(recovery ? 'Enter one of your recovery codes.' : 'Enter the 6-digit code.');
      return;
    }
    setMissing(undefined);
    verify.mutate(
      recovery
        ? { ChallengeToken: challenge.ChallengeToken, RecoveryCode: code.trim() }
        : { ChallengeToken: challenge.ChallengeToken, Code: code.trim() },
      {
        onSuccess: (session) => onSignedIn?.(session),
        onError: (error) => {
          setCode('');
          if (expired(error)) onRestart(error.detail);
        },
      },
    );
  };

  return (
    <form onSubmit={submit} noValidate aria-labelledby="second-step-title">
      <Stack gap="md">
        <div>
          <Title order={1} size="h3" id="second-step-title">
            Two-step verification
          </Title>
          <Text size="sm" c="dimmed">
            {recovery
              ? 'Enter one of the recovery codes you saved when you set up two-step verification. Each works once.'
              : 'Enter the 6-digit code your authenticator app shows for Rampart.'}
          </Text>
        </div>
        {verify.isError && !expired(verify.error) && (
          <Alert color="red" variant="light" icon={<IconAlertCircle />}>
            {signInFailure(verify.error)}
          </Alert>
        )}
        <TextInput
          ref={inputRef}
          key={recovery ? 'recovery' : 'code'}
          label={recovery ? 'Recovery code' : 'Authentication code'}
          name={recovery ? 'recovery-code' : 'one-time-code'}
          autoComplete={recovery ? 'off' : 'one-time-code'}
          inputMode={recovery ? 'text' : 'numeric'}
          spellCheck={false}
          placeholder={recovery ? 'xxxx-xxxx-xxxx-xxxx' : '123456'}
          value={code}
          onChange={(e) => setCode(e.currentTarget.value)}
          error={missing}
        />
        <Button type="submit" fullWidth loading={verify.isPending}>
          Verify
        </Button>
        <Group justify="space-between">
          <Anchor
            component="button"
            type="button"
            size="sm"
            onClick={() => {
              setRecovery(!recovery);
              setCode('');
              setMissing(undefined);
              verify.reset();
            }}
          >
            {recovery ? 'Use the authenticator app' : 'Use a recovery code'}
          </Anchor>
          <Anchor component="button" type="button" size="sm" c="dimmed" onClick={() => onRestart(null)}>
            {restartLabel}
          </Anchor>
        </Group>
        <Text size="xs" c="dimmed">
          Lost your device and your recovery codes? Ask an Admin of your organisation to reset your two-step
          verification.
        </Text>
      </Stack>
    </form>
  );
}

/**
 * Setting a factor up during the sign-in, because the organisation requires one: the secret as a
 * QR code and as text, a code to confirm it, then the recovery codes, shown once, before the
 * session starts.
 */
export function EnrolStep({ challenge, onRestart, onSignedIn, restartLabel = 'Start over' }: StepProps) {
  const start = useSignInStartEnrolment();
  const confirm = useSignInConfirmEnrolment();
  const begin = start.mutate;
  // The page's callback changes with each render; the set-up starts once per sign-in.
  const restart = useRef(onRestart);
  restart.current = onRestart;

  // Once per challenge, though React may run the effect twice (a remount in development).
  const startedFor = useRef<string | null>(null);

  useEffect(() => {
    if (startedFor.current === challenge.ChallengeToken) return;
    startedFor.current = challenge.ChallengeToken;
    begin(
      { ChallengeToken: challenge.ChallengeToken },
      { onError: (error) => expired(error) && restart.current(error.detail) },
    );
  }, [begin, challenge.ChallengeToken]);

  if (confirm.data) {
    const enrolled = confirm.data;
    return (
      <Stack gap="md">
        <Title order={1} size="h3">
          Save your recovery codes
        </Title>
        <RecoveryCodesList codes={enrolled.RecoveryCodes} />
        <Button
          fullWidth
          onClick={() => {
            const session = startSession(enrolled);
            onSignedIn?.(session);
          }}
        >
          I have saved them — continue
        </Button>
      </Stack>
    );
  }

  return (
    <Stack gap="md">
      <div>
        <Title order={1} size="h3" id="enrol-title">
          Set up two-step verification
        </Title>
        <Text size="sm" c="dimmed">
          Your organisation requires a second step at sign-in. Add Rampart to an authenticator app (such as
          Google Authenticator, Microsoft Authenticator, 1Password or FreeOTP), then enter the code it shows.
        </Text>
      </div>
      {start.isPending && <Loader size="sm" aria-label="Making a secret" />}
      {start.isError && !expired(start.error) && (
        <Alert color="red" variant="light" icon={<IconAlertCircle />}>
          {signInFailure(start.error)}
        </Alert>
      )}
      {start.data && (
        <TotpSetup
          enrolment={start.data}
          pending={confirm.isPending}
          error={confirm.isError && !expired(confirm.error) ? signInFailure(confirm.error) : undefined}
          onConfirm={(code) =>
            confirm.mutate(
              { ChallengeToken: challenge.ChallengeToken, Code: code },
              { onError: (error) => expired(error) && onRestart(error.detail) },
            )
          }
          submit="Confirm and sign in"
        />
      )}
      <Anchor component="button" type="button" size="sm" c="dimmed" onClick={() => onRestart(null)}>
        {restartLabel}
      </Anchor>
    </Stack>
  );
}
