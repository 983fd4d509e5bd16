import { Button, Card, Group, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { type FormEvent, useState } from 'react';
import { useChangePassword } from '../../api/account';
import { ApiError } from '../../api/client';
import { ErrorAlert } from '../../components/QueryError';

interface FieldErrors {
  current?: string;
  next?: string;
  confirm?: string;
}

/** `email` fills a hidden username field so password managers update the right entry. */
export function ChangePasswordForm({ email }: { email: string | undefined }) {
  const change = useChangePassword();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [confirm, setConfirm] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<unknown>(null);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found: FieldErrors = {
      current: current ? undefined : 'Enter your current password.',
      next: next ? undefined : 'Enter a new password.',
      confirm: confirm === next ? undefined : 'The new passwords do not match.',
    };
    setErrors(found);
    setFormError(null);
    if (found.current || found.next || found.confirm) return;

    change.mutate(
      { CurrentPassword: current, NewPassword: next },
      {
        onSuccess: () => {
          setCurrent('');
          setNext('');
          setConfirm('');
          notifications.show({
            color: 'green',
            message: 'Password changed. Your other sessions were signed out.',
          });
        },
        onError: (error) => {
          const byField: FieldErrors = {};
          if (error instanceof ApiError) {
            byField.current = error.fieldError('/CurrentPassword');
            byField.next = error.fieldError('/NewPassword');
          }
          setErrors(byField);
          // Whatever the fields cannot show (a 429, a network failure, an unexpected path) goes above them.
          if (!byField.current && !byField.next) setFormError(error);
        },
      },
    );
  };

  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="password-title">
      <Title order={2} size="h4" id="password-title">
        Change password
      </Title>
      <Text size="sm" c="dimmed" mb="md">
        Changing your password signs you out everywhere else; this session stays signed in.
      </Text>
      <form onSubmit={submit} noValidate aria-labelledby="password-title">
        {/* Password managers file the new password under this account. */}
        <input type="text" name="username" autoComplete="username" value={email ?? ''} readOnly hidden />
        <Stack gap="sm" maw={420}>
          <ErrorAlert error={formError} />
          <PasswordInput
            label="Current password"
            autoComplete="current-password"
            required
            value={current}
            onChange={(e) => setCurrent(e.currentTarget.value)}
            error={errors.current}
          />
          <PasswordInput
            label="New password"
            description="At least 12 characters, at least 5 of them different, not containing the name part of your email."
            autoComplete="new-password"
            required
            value={next}
            onChange={(e) => setNext(e.currentTarget.value)}
            error={errors.next}
          />
          <PasswordInput
            label="Confirm new password"
            autoComplete="new-password"
            required
            value={confirm}
            onChange={(e) => setConfirm(e.currentTarget.value)}
            error={errors.confirm}
          />
          <Group>
            <Button type="submit" loading={change.isPending}>
              Change password
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}
