import { Alert, Button, Divider, Stack } from '@mantine/core';
import { useSearchParams } from 'react-router';
import { useSignInProviders } from '../../api/sso';
import { IconAlertCircle, IconKey } from '../../icons';

/**
 * Why a single sign-on was refused, by the reason the server's callback sends back in
 * `?sso_error=` (src/modules/sso/service.ts SsoRefusal): what happened and what to do.
 */
const REFUSALS: Record<string, string> = {
  'unknown-provider':
    'This single sign-on provider does not exist or is disabled. Ask an Admin which one to use.',
  unreachable:
    'The identity provider could not be reached, so you were not signed in. Try again in a moment; if it keeps failing, tell an Admin.',
  'provider-misconfigured':
    'The identity provider’s discovery document does not match how Rampart is configured for it (its issuer, for one). Tell an Admin.',
  'attempt-unknown':
    'This sign-in was not started from this browser, was used already, or took longer than 10 minutes. Start again with the button below.',
  state:
    'The identity provider’s answer does not belong to the sign-in this browser started (its state does not match), so it was refused. Start again with the button below.',
  'code-rejected':
    'The identity provider refused the sign-in code: it was used already or has expired. Start again with the button below.',
  'provider-refused': 'The identity provider refused the sign-in. Start again, or ask an Admin.',
  'token-invalid':
    'The identity provider’s ID token failed validation (issuer, audience, signature, nonce or time), so it was refused. Tell an Admin: the provider’s configuration in Rampart may not match it.',
  'no-email':
    'The identity provider did not send your email address. Ask an Admin to request the email scope.',
  'email-invalid': 'The email address the identity provider sent is not one Rampart accepts. Tell an Admin.',
  'email-elsewhere': 'Your email address belongs to a user of another organisation in Rampart.',
  'email-unverified':
    'The identity provider says your email address is not verified, so it was not linked to your Rampart user.',
  'no-role': 'None of your groups gives you a role in Rampart. Ask an Admin to map one of your groups.',
  inactive: 'Your Rampart user is deactivated. Ask an Admin of your organisation.',
};

/** The reason a single sign-on was refused, when the browser came back with one. */
export function SsoRefusal() {
  const [params] = useSearchParams();
  const reason = params.get('sso_error');
  if (!reason) return null;
  return (
    <Alert color="red" variant="light" icon={<IconAlertCircle />} title="Single sign-on failed" role="alert">
      {REFUSALS[reason] ?? 'The single sign-on was refused. Start again, or ask an Admin.'}
    </Alert>
  );
}

/** One "Sign in with …" button per enabled provider; nothing when there is none. */
export function SsoButtons() {
  const providers = useSignInProviders();
  const items = providers.data?.Items ?? [];
  if (items.length === 0) return null;
  return (
    <Stack gap="sm" mt="md">
      <Divider label="or" labelPosition="center" />
      {items.map((p) => (
        <Button
          key={p.Id}
          component="a"
          href={p.StartUrl}
          variant="default"
          fullWidth
          leftSection={<IconKey size={16} />}
        >
          Sign in with {p.Name}
        </Button>
      ))}
    </Stack>
  );
}
