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
import { useSession, useSignIn } from '../../api/session';
import type { SecondStep } from '../../api/types';
import { FullPageLoader } from '../../components/FullPageLoader';
import { Logo } from '../../components/Logo';
import { IconAlertCircle } from '../../icons';
import { safeNext } from '../../paths';
import { signInFailure } from './failure';
import { EnrolStep, SecondFactorStep } from './SecondStep';
import { SsoButtons, SsoRefusal } from './SsoSignIn';

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
  // After the password: the second step it needs (a code, or setting a factor up), if any.
  const [secondStep, setSecondStep] = useState<SecondStep | null>(null);
  // Why the user is back at the password (a second step that expired).
  const [restarted, setRestarted] = useState<string | null>(null);

  // Only the probe decides; once it has, start typing straight away.
  const ready = !session.isPending;
  useEffect(() => {
    if (ready && !secondStep) emailRef.current?.focus();
  }, [ready, secondStep]);

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
    setRestarted(null);
    signIn.mutate(
      { Email: email.trim(), Password: password },
      {
        onError: () => setPassword(''),
        onSuccess: (result) => {
          setPassword('');
          if (result.secondStep) setSecondStep(result.secondStep);
        },
      },
    );
  };

  /** Back to the password, saying why (the second step expired, or the user chose to). */
  const restart = (why: string | null) => {
    setSecondStep(null);
    setRestarted(why);
    signIn.reset();
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
            {secondStep?.Step === 'Code' && <SecondFactorStep challenge={secondStep} onRestart={restart} />}
            {secondStep?.Step === 'Enrol' && <EnrolStep challenge={secondStep} onRestart={restart} />}
            <form onSubmit={submit} noValidate aria-labelledby="sign-in-title" hidden={!!secondStep}>
              <Stack gap="md">
                <div>
                  <Title order={1} size="h3" id="sign-in-title">
                    Sign in
                  </Title>
                  <Text size="sm" c="dimmed">
                    Vulnerability management for your organisation.
                  </Text>
                </div>
                {restarted && (
                  <Alert color="yellow" variant="light" icon={<IconAlertCircle />}>
                    {restarted}
                  </Alert>
                )}
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
