import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Card,
  Code,
  Group,
  Modal,
  PasswordInput,
  Select,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { type FormEvent, useState } from 'react';
import { ApiError } from '../../api/client';
import { useSignedInSession } from '../../api/session';
import {
  type SsoProvider,
  useAddSsoProvider,
  useChangeSsoProvider,
  useRemoveSsoProvider,
  useSaveSsoSettings,
  useSsoProviders,
  useSsoSettings,
} from '../../api/sso';
import { ROLES, type Role } from '../../api/types';
import { ConfirmModal } from '../../components/ConfirmModal';
import { TableSkeleton } from '../../components/PageSkeleton';
import { ErrorAlert, QueryError } from '../../components/QueryError';
import { TableHead } from '../../components/TableHead';
import { IconInfoCircle, IconPlus, IconX } from '../../icons';

/** Single sign-on (OpenID Connect): the organisation's providers and "single sign-on only". Admins only. */
export function SsoSection() {
  const isAdmin = useSignedInSession().User.Role === 'Admin';
  const providers = useSsoProviders(isAdmin);
  const [editing, setEditing] = useState<SsoProvider | 'new' | null>(null);
  if (!isAdmin) return null;
  return (
    <Card withBorder padding="lg" radius="md" component="section" id="sso" aria-labelledby="sso-title">
      <Title order={2} size="h4" id="sso-title">
        Single sign-on
      </Title>
      <Text size="sm" c="dimmed" mb="md">
        People sign in through your identity provider (OpenID Connect: Keycloak, Entra ID, Okta, …). Users are
        created on their first sign-in, and their role follows their groups at every sign-in: the highest role
        of their mapped groups, else the provider's default role, else they are refused. Register each
        provider's redirect URI at the provider.
      </Text>
      {providers.isPending ? (
        <TableSkeleton />
      ) : providers.isError ? (
        <QueryError error={providers.error} onRetry={() => providers.refetch()} />
      ) : (
        <Stack gap="md">
          <ProvidersTable providers={providers.data.Items} onEdit={setEditing} />
          <Group>
            <Button leftSection={<IconPlus size={16} />} variant="light" onClick={() => setEditing('new')}>
              Add provider
            </Button>
          </Group>
          <SsoOnlySwitch hasEnabled={providers.data.Items.some((p) => p.Enabled)} />
        </Stack>
      )}
      <Modal
        opened={editing !== null}
        onClose={() => setEditing(null)}
        title={editing === 'new' ? 'Add single sign-on provider' : `Change ${editing?.Name ?? ''}`}
        size="lg"
      >
        {editing !== null && (
          <ProviderForm
            key={editing === 'new' ? 'new' : editing.Id}
            provider={editing === 'new' ? null : editing}
            onDone={() => setEditing(null)}
          />
        )}
      </Modal>
    </Card>
  );
}

function ProvidersTable({
  providers,
  onEdit,
}: {
  providers: SsoProvider[];
  onEdit: (provider: SsoProvider) => void;
}) {
  const remove = useRemoveSsoProvider();
  const [target, setTarget] = useState<SsoProvider | null>(null);
  const [confirming, setConfirming] = useState(false);
  if (providers.length === 0)
    return (
      <Alert variant="light" color="gray" icon={<IconInfoCircle />}>
        No provider yet: people sign in with their email and password.
      </Alert>
    );
  return (
    <>
      <Table.ScrollContainer minWidth={720}>
        <Table striped verticalSpacing="xs" fz="sm" aria-label="Single sign-on providers">
          <TableHead columns={['Name', 'Issuer', 'Roles', 'Redirect URI', { hidden: 'Actions' }]} />
          <Table.Tbody>
            {providers.map((p) => (
              <Table.Tr key={p.Id}>
                <Table.Td>
                  <Group gap="xs" wrap="nowrap">
                    <Text size="sm" fw={500}>
                      {p.Name}
                    </Text>
                    {!p.Enabled && (
                      <Badge variant="light" color="gray">
                        Disabled
                      </Badge>
                    )}
                  </Group>
                  <Text size="xs" c="dimmed">
                    Client {p.ClientId}
                    {p.HasClientSecret ? ' · secret kept' : ' · public client'}
                  </Text>
                </Table.Td>
                <Table.Td style={{ overflowWrap: 'anywhere' }}>{p.IssuerUrl}</Table.Td>
                <Table.Td>
                  {p.RoleMappings.map((m) => (
                    <Text size="xs" key={m.Group}>
                      {m.Group} → {m.Role}
                    </Text>
                  ))}
                  <Text size="xs" c="dimmed">
                    Otherwise {p.DefaultRole ?? 'refused'}
                  </Text>
                </Table.Td>
                <Table.Td style={{ overflowWrap: 'anywhere' }}>
                  <Code>{p.RedirectUri}</Code>
                </Table.Td>
                <Table.Td ta="right">
                  <Group gap={4} justify="flex-end" wrap="nowrap">
                    <Button
                      size="compact-sm"
                      variant="subtle"
                      aria-label={`Change ${p.Name}`}
                      onClick={() => onEdit(p)}
                    >
                      Change
                    </Button>
                    <Button
                      size="compact-sm"
                      variant="subtle"
                      color="red"
                      aria-label={`Remove ${p.Name}`}
                      onClick={() => {
                        remove.reset();
                        setTarget(p);
                        setConfirming(true);
                      }}
                    >
                      Remove
                    </Button>
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <ConfirmModal
        opened={confirming}
        onClose={() => setConfirming(false)}
        title="Remove single sign-on provider"
        confirmLabel="Remove"
        onConfirm={() =>
          target &&
          remove.mutate(target.Id, {
            onSuccess: () => {
              setConfirming(false);
              notifications.show({ color: 'green', message: `${target.Name} removed.` });
            },
          })
        }
        mutation={remove}
      >
        <Text size="sm">
          Remove {target?.Name}? Its users stay, with their roles, but can no longer sign in through it.
        </Text>
      </ConfirmModal>
    </>
  );
}

const REFUSE = 'refuse';

function ProviderForm({ provider, onDone }: { provider: SsoProvider | null; onDone: () => void }) {
  const add = useAddSsoProvider();
  const change = useChangeSsoProvider();
  const mutation = provider ? change : add;
  const [name, setName] = useState(provider?.Name ?? '');
  const [issuer, setIssuer] = useState(provider?.IssuerUrl ?? '');
  const [clientId, setClientId] = useState(provider?.ClientId ?? '');
  const [secret, setSecret] = useState('');
  const [scopes, setScopes] = useState((provider?.Scopes ?? ['openid', 'email', 'profile']).join(' '));
  const [groupsClaim, setGroupsClaim] = useState(provider?.GroupsClaim ?? 'groups');
  const [defaultRole, setDefaultRole] = useState<string>(
    provider ? (provider.DefaultRole ?? REFUSE) : 'ReadOnly',
  );
  const [mappings, setMappings] = useState<{ Group: string; Role: Role }[]>(provider?.RoleMappings ?? []);
  const [enabled, setEnabled] = useState(provider?.Enabled ?? true);
  const error = mutation.error instanceof ApiError ? mutation.error : undefined;
  const field = (path: string) => error?.fieldError(path);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body = {
      Name: name.trim(),
      IssuerUrl: issuer.trim(),
      ClientId: clientId.trim(),
      ...(secret ? { ClientSecret: secret } : {}),
      Scopes: scopes.split(/\s+/).filter(Boolean),
      GroupsClaim: groupsClaim.trim(),
      DefaultRole: defaultRole === REFUSE ? null : (defaultRole as Role),
      RoleMappings: mappings
        .filter((m) => m.Group.trim())
        .map((m) => ({ Group: m.Group.trim(), Role: m.Role })),
      Enabled: enabled,
    };
    const done = () => {
      notifications.show({ color: 'green', message: `${body.Name} saved.` });
      onDone();
    };
    if (provider) change.mutate({ id: provider.Id, body }, { onSuccess: done });
    else add.mutate(body, { onSuccess: done });
  };

  return (
    <form onSubmit={submit} noValidate aria-label="Single sign-on provider">
      <Stack gap="sm">
        {error && !error.problem.errors?.length && <ErrorAlert error={error} />}
        <TextInput
          label="Display name"
          description="Shown as “Sign in with …”"
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          error={field('/Name')}
          required
        />
        <TextInput
          label="Issuer URL"
          description="https://…; the provider's /.well-known/openid-configuration is read from it"
          value={issuer}
          onChange={(e) => setIssuer(e.currentTarget.value)}
          error={field('/IssuerUrl')}
          required
        />
        <TextInput
          label="Client ID"
          value={clientId}
          onChange={(e) => setClientId(e.currentTarget.value)}
          error={field('/ClientId')}
          required
        />
        <PasswordInput
          label="Client secret"
          description={
            provider?.HasClientSecret
              ? 'A secret is kept and never shown; type a new one to replace it.'
              : 'Leave empty for a public client (PKCE only).'
          }
          value={secret}
          onChange={(e) => setSecret(e.currentTarget.value)}
          error={field('/ClientSecret')}
          autoComplete="new-password"
        />
        <TextInput
          label="Scopes"
          description="Separated by spaces; openid is required"
          value={scopes}
          onChange={(e) => setScopes(e.currentTarget.value)}
          error={field('/Scopes')}
        />
        <TextInput
          label="Groups claim"
          description="The ID token claim that lists the user's groups"
          value={groupsClaim}
          onChange={(e) => setGroupsClaim(e.currentTarget.value)}
          error={field('/GroupsClaim')}
        />
        <Stack gap={6}>
          <Text size="sm" fw={500}>
            Group → role
          </Text>
          {mappings.map((m, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity but their place
            <Group key={i} gap="xs" wrap="nowrap" align="flex-start">
              <TextInput
                aria-label={`Group ${i + 1}`}
                placeholder="Group"
                value={m.Group}
                onChange={(e) => {
                  const value = e.currentTarget.value;
                  setMappings((all) => all.map((x, j) => (j === i ? { ...x, Group: value } : x)));
                }}
                error={field(`/RoleMappings/${i}/Group`)}
                style={{ flex: 1 }}
              />
              <Select
                aria-label={`Role of group ${i + 1}`}
                data={[...ROLES]}
                value={m.Role}
                onChange={(value) =>
                  value &&
                  setMappings((all) => all.map((x, j) => (j === i ? { ...x, Role: value as Role } : x)))
                }
                allowDeselect={false}
                w={140}
              />
              <ActionIcon
                variant="subtle"
                color="gray"
                size="lg"
                aria-label={`Remove mapping ${i + 1}`}
                onClick={() => setMappings((all) => all.filter((_, j) => j !== i))}
              >
                <IconX size={16} />
              </ActionIcon>
            </Group>
          ))}
          <Group>
            <Button
              size="compact-sm"
              variant="subtle"
              leftSection={<IconPlus size={14} />}
              onClick={() => setMappings((all) => [...all, { Group: '', Role: 'ReadOnly' }])}
            >
              Map a group
            </Button>
          </Group>
        </Stack>
        <Select
          label="Users with no mapped group"
          data={[
            ...ROLES.map((r) => ({ value: r, label: `Get the role ${r}` })),
            { value: REFUSE, label: 'Are refused' },
          ]}
          value={defaultRole}
          onChange={(value) => value && setDefaultRole(value)}
          allowDeselect={false}
        />
        <Switch
          label="Enabled (offered on the sign-in page)"
          checked={enabled}
          onChange={(e) => setEnabled(e.currentTarget.checked)}
        />
        <Group justify="flex-end" gap="sm" mt="sm">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" loading={mutation.isPending}>
            Save provider
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function SsoOnlySwitch({ hasEnabled }: { hasEnabled: boolean }) {
  const settings = useSsoSettings();
  const save = useSaveSsoSettings();
  if (settings.isPending || settings.isError) return null;
  return (
    <Stack gap={4}>
      <Switch
        label="Single sign-on only"
        description="Password sign-in is refused for your organisation's users; API keys keep working."
        checked={settings.data.SsoOnly}
        disabled={(!hasEnabled && !settings.data.SsoOnly) || save.isPending}
        onChange={(e) =>
          save.mutate(
            { SsoOnly: e.currentTarget.checked },
            {
              onSuccess: (s) =>
                notifications.show({
                  color: 'green',
                  message: s.SsoOnly ? 'Single sign-on only is on.' : 'Password sign-in is allowed again.',
                }),
            },
          )
        }
      />
      <ErrorAlert error={save.error} />
    </Stack>
  );
}
