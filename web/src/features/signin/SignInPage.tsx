import {
  Alert,
  Anchor,
  Box,
  Button,
  Center,
  Paper,
  PasswordInput,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { Navigate, useSearchParams } from 'react-router';
import { ApiError, errorMessage } from '../../api/client';
import { useSession, useSignIn } from '../../api/session';
import { FullPageLoader } from '../../components/FullPageLoader';
import { Logo } from '../../components/Logo';
import { IconAlertCircle } from '../../icons';
import { safeNext } from '../../paths';
import { SsoButtons, SsoRefusal } from './SsoSignIn';

function signInFailure(error: unknown): string {
  if (error instanceof ApiError && error.status === 429) {
    return error.retryAfter !== undefined
      ? `Too many sign-in attempts: try again in ${error.retryAfter} seconds.`
      : 'Too many sign-in attempts: try again later.';
  }
  return errorMessage(error);
}

export function SignInPage() {
  useDocumentTitle('Sign in · Rampart');
  const [params] = useSearchParams();
  const next = safeNext(params.get('next'));
  const session = useSession();
  const signIn = useSignIn();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [missing, setMissing] = useState<{ email?: string; password?: string }>({});
  const emailRef = useRef<HTMLInputElement>(null);

  // Only the probe decides; once it has, start typing straight away.
  const ready = !session.isPending;
  useEffect(() => {
    if (ready) emailRef.current?.focus();
  }, [ready]);

  // Signed in (now, or already in another tab): on to where the user was going.
  if (session.data) return <Navigate to={next} replace />;
  if (!ready) return <FullPageLoader label="Loading…" />;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const problems = {
      email: email.trim() ? undefined : 'Enter your email address.',
      password: password ? undefined : 'Enter your password.',
    };
    setMissing(problems);
    if (problems.email || problems.password) return;
    signIn.mutate({ Email: email.trim(), Password: password }, { onError: () => setPassword('') });
  };

  return (
    <Box
      mih="100vh"
      bg="light-dark(var(--mantine-color-gray-0), var(--mantine-color-dark-8))"
      component="main"
    >
      <Center mih="100vh" p="md">
        <Stack w="100%" maw={400} gap="lg">
          <Center>
            <Logo size="lg" />
          </Center>
          <SsoRefusal />
          <Paper withBorder shadow="sm" p="xl" radius="md">
            <form onSubmit={submit} noValidate aria-labelledby="sign-in-title">
              <Stack gap="md">
                <div>
                  <Title order={1} size="h3" id="sign-in-title">
                    Sign in
                  </Title>
                  <Text size="sm" c="dimmed">
                    Vulnerability management for your organisation.
                  </Text>
                </div>
                {signIn.isError && (
                  <Alert color="red" variant="light" icon={<IconAlertCircle />}>
                    {signInFailure(signIn.error)}
                  </Alert>
                )}
                <TextInput
                  ref={emailRef}
                  label="Email"
                  type="email"
                  name="email"
                  autoComplete="username"
                  spellCheck={false}
                  value={email}
                  onChange={(e) => setEmail(e.currentTarget.value)}
                  error={missing.email}
                />
                <PasswordInput
                  label="Password"
                  name="password"
                  autoComplete="current-password"
                  value={password}
                  onChange={(e) => setPassword(e.currentTarget.value)}
                  error={missing.password}
                />
                <Button type="submit" fullWidth loading={signIn.isPending} mt="xs">
                  Sign in
                </Button>
              </Stack>
            </form>
            <SsoButtons />
          </Paper>
          <Text size="xs" c="dimmed" ta="center">
            Forgot your password? Ask an Admin of your organisation to reset it. ·{' '}
            <Anchor href="/apidoc/latest/" size="xs">
              API documentation
            </Anchor>
          </Text>
        </Stack>
      </Center>
    </Box>
  );
}
