import { Alert, Button, Group, Image, Stack, Text, TextInput } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import type { MfaEnrolment } from '../../api/types';
import { CopyValue } from '../../components/CopyValue';
import { IconAlertCircle } from '../../icons';

/**
 * A new TOTP secret for an authenticator app (its QR code, and the secret as text for typing by
 * hand) and the code that confirms it: in My profile, and at sign-in when a factor is required.
 */
export function TotpSetup({
  enrolment,
  pending,
  error,
  onConfirm,
  onCancel,
  submit,
}: {
  enrolment: MfaEnrolment;
  pending: boolean;
  /** Why the last code was refused. */
  error?: string;
  onConfirm: (code: string) => void;
  onCancel?: () => void;
  submit: string;
}) {
  const [code, setCode] = useState('');
  const [missing, setMissing] = useState<string | undefined>();

  const confirm = (event: FormEvent) => {
    event.preventDefault();
    if (!/^\s*\d{3}\s?\d{3}\s*$/.test(code)) {
      setMissing('Enter the 6 digits the app shows.');
      return;
    }
    setMissing(undefined);
    onConfirm(code.replace(/\s/g, ''));
  };

  return (
    <form onSubmit={confirm} noValidate aria-label="Confirm the authenticator app">
      <Stack gap="sm">
        <Text size="sm">1. Scan this QR code with your authenticator app.</Text>
        <Image
          src={enrolment.QrCode}
          alt="QR code of the secret for your authenticator app"
          w={184}
          h={184}
          radius="sm"
          // A white margin around the code, which scanners need, in both themes.
          bg="white"
          p={4}
          style={{ border: '1px solid var(--mantine-color-default-border)' }}
        />
        <CopyValue
          label="Or type this secret into the app"
          value={enrolment.Secret.replace(/(.{4})/g, '$1 ').trim()}
          copyLabel="Copy secret"
          testId="totp-secret"
        />
        <Text size="sm">2. Enter the 6-digit code the app now shows for Rampart.</Text>
        {error && (
          <Alert color="red" variant="light" icon={<IconAlertCircle />}>
            {error}
          </Alert>
        )}
        <TextInput
          label="Code from the app"
          name="one-time-code"
          autoComplete="one-time-code"
          inputMode="numeric"
          maw={200}
          placeholder="123456"
          value={code}
          onChange={(e) => setCode(e.currentTarget.value)}
          error={missing}
        />
        <Group gap="sm">
          <Button type="submit" loading={pending}>
            {submit}
          </Button>
          {onCancel && (
            <Button variant="default" onClick={onCancel}>
              Cancel
            </Button>
          )}
        </Group>
      </Stack>
    </form>
  );
}
