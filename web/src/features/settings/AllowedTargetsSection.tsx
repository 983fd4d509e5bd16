import {
  Alert,
  Badge,
  Button,
  Card,
  Code,
  Group,
  SegmentedControl,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { type FormEvent, useEffect, useState } from 'react';
import { useLocation } from 'react-router';
import {
  type AllowedTarget,
  type AllowedTargetKind,
  type TargetRule,
  useAddAllowedTarget,
  useAllowedTargets,
  useCheckTargets,
  useRemoveAllowedTarget,
} from '../../api/allowedtargets';
import { ApiError, errorMessage } from '../../api/client';
import { useSignedInSession } from '../../api/session';
import { hasRole } from '../../api/types';
import { ConfirmModal } from '../../components/ConfirmModal';
import { DateTime } from '../../components/DateTime';
import { TableSkeleton } from '../../components/PageSkeleton';
import { QueryError } from '../../components/QueryError';
import { TableHead } from '../../components/TableHead';
import { IconInfoCircle, IconPlus } from '../../icons';

export const ALLOWED_TARGETS_ANCHOR = 'allowed-targets';

/** The rules that refuse an entry itself; the others (not allowed yet, excluded) are what adding changes. */
const ENTRY_RULES: Record<AllowedTargetKind, readonly TargetRule[]> = {
  Allowed: ['Syntax', 'TooLarge', 'AlwaysRefused', 'Loopback'],
  Excluded: ['Syntax'],
};

export function AllowedTargetsSection() {
  const isAdmin = hasRole(useSignedInSession().User.Role, 'Admin');
  const entries = useAllowedTargets();
  useScrollToAnchor(entries.isSuccess);

  return (
    <Card
      withBorder
      padding="lg"
      radius="md"
      component="section"
      id={ALLOWED_TARGETS_ANCHOR}
      aria-labelledby="allowed-targets-title"
    >
      <Title order={2} size="h4" id="allowed-targets-title">
        Allowed scan targets
      </Title>
      <Text size="sm" c="dimmed" mb="md">
        Scans reach only the ranges and host names allowed here, less the exclusions. Some addresses are
        refused whatever this list says: multicast, broadcast, link-local (with the cloud metadata address
        169.254.169.254), reserved and unspecified addresses, and loopback unless the server allows it. One
        range holds at most 65,536 addresses (a /16).
      </Text>
      {entries.isPending ? (
        <TableSkeleton />
      ) : entries.isError ? (
        <QueryError error={entries.error} onRetry={() => entries.refetch()} />
      ) : (
        <Stack gap="md">
          <EntriesTable entries={entries.data.Items} isAdmin={isAdmin} />
          {isAdmin ? (
            <AddEntryForm />
          ) : (
            <Text size="sm" c="dimmed">
              Only Admins can allow or exclude scan targets; you can see them.
            </Text>
          )}
        </Stack>
      )}
    </Card>
  );
}

/** The router does not scroll to a #fragment: once the list is there, bring the section into view. */
function useScrollToAnchor(ready: boolean) {
  const { hash } = useLocation();
  useEffect(() => {
    if (ready && hash === `#${ALLOWED_TARGETS_ANCHOR}`)
      document.getElementById(ALLOWED_TARGETS_ANCHOR)?.scrollIntoView({ block: 'start' });
  }, [ready, hash]);
}

function EntriesTable({ entries, isAdmin }: { entries: AllowedTarget[]; isAdmin: boolean }) {
  const remove = useRemoveAllowedTarget();
  // Kept after the dialog closes so its text does not vanish during the closing animation.
  const [target, setTarget] = useState<AllowedTarget | null>(null);
  const [confirming, setConfirming] = useState(false);

  if (entries.length === 0)
    return (
      <Alert variant="light" color="yellow" icon={<IconInfoCircle />} title="Nothing can be scanned yet">
        No scan target is allowed yet: nothing can be scanned until an Admin allows a range.
      </Alert>
    );

  const confirmRemove = () => {
    if (!target) return;
    remove.mutate(target.Id, {
      onSuccess: () => {
        setConfirming(false);
        notifications.show({ color: 'green', message: `${target.Target} removed.` });
      },
    });
  };

  return (
    <>
      {!entries.some((entry) => entry.Kind === 'Allowed') && (
        <Alert variant="light" color="yellow" icon={<IconInfoCircle />} title="Nothing can be scanned yet">
          Only exclusions are listed: nothing can be scanned until an Admin allows a range.
        </Alert>
      )}
      <Table.ScrollContainer minWidth={640}>
        <Table striped verticalSpacing="xs" fz="sm" aria-label="Allowed and excluded scan targets">
          <TableHead
            columns={[
              'Target',
              'Kind',
              'Description',
              { label: 'Addresses', ta: 'right' },
              'Added',
              isAdmin && { hidden: 'Actions' },
            ]}
          />
          <Table.Tbody>
            {entries.map((entry) => (
              <Table.Tr key={entry.Id}>
                <Table.Td>
                  <Code>{entry.Target}</Code>
                </Table.Td>
                <Table.Td>
                  <Badge variant="light" color={entry.Kind === 'Allowed' ? 'green' : 'gray'}>
                    {entry.Kind}
                  </Badge>
                </Table.Td>
                <Table.Td style={{ overflowWrap: 'anywhere' }}>{entry.Description}</Table.Td>
                <Table.Td ta="right">{entry.AddressCount?.toLocaleString('en') ?? 'Any below'}</Table.Td>
                <Table.Td>
                  <DateTime value={entry.CreatedAt} />
                </Table.Td>
                {isAdmin && (
                  <Table.Td ta="right">
                    <Button
                      size="compact-sm"
                      variant="subtle"
                      color="red"
                      aria-label={`Remove ${entry.Target}`}
                      onClick={() => {
                        remove.reset();
                        setTarget(entry);
                        setConfirming(true);
                      }}
                    >
                      Remove
                    </Button>
                  </Table.Td>
                )}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <ConfirmModal
        opened={confirming}
        onClose={() => setConfirming(false)}
        title="Remove scan target"
        confirmLabel="Remove"
        onConfirm={confirmRemove}
        mutation={remove}
      >
        <Text size="sm">
          Remove the {target?.Kind.toLowerCase()} target <Code>{target?.Target}</Code>? Scans saved or started
          from now on are checked without it.
        </Text>
      </ConfirmModal>
    </>
  );
}

function AddEntryForm() {
  const add = useAddAllowedTarget();
  const [kind, setKind] = useState<AllowedTargetKind>('Allowed');
  const [target, setTarget] = useState('');
  const [description, setDescription] = useState('');
  const [submitError, setSubmitError] = useState<string | undefined>();
  const live = useLiveVerdict(kind, target);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (target.trim() === '') {
      setSubmitError('Enter a range, an address or a host name.');
      return;
    }
    add.mutate(
      { Kind: kind, Target: target, ...(description.trim() ? { Description: description.trim() } : {}) },
      {
        onSuccess: (entry) => {
          notifications.show({ color: 'green', message: `${entry.Target} ${entry.Kind.toLowerCase()}.` });
          setTarget('');
          setDescription('');
          setSubmitError(undefined);
        },
        onError: (error) => {
          // A refusal names the field with its rule first ("AlwaysRefused: …"); the sentence is enough here.
          const field = error instanceof ApiError ? error.fieldError('/Target') : undefined;
          setSubmitError(field?.replace(/^[A-Za-z]+: /, '') ?? errorMessage(error));
        },
      },
    );
  };

  const error = submitError ?? live.error;
  return (
    <form onSubmit={submit} noValidate aria-label="Add a scan target">
      <Stack gap="sm">
        <Title order={3} size="h5">
          Add a target
        </Title>
        <SegmentedControl
          aria-label="Kind"
          value={kind}
          onChange={(value) => {
            setKind(value as AllowedTargetKind);
            setSubmitError(undefined);
          }}
          data={[
            { value: 'Allowed', label: 'Allow' },
            { value: 'Excluded', label: 'Exclude' },
          ]}
          w="fit-content"
        />
        <Group align="flex-start" gap="sm" wrap="wrap">
          <TextInput
            label="Target"
            placeholder="10.0.0.0/24, 10.0.0.1-20, host.example.com"
            description={error ? undefined : live.description}
            value={target}
            onChange={(e) => {
              setTarget(e.currentTarget.value);
              setSubmitError(undefined);
            }}
            error={error}
            style={{ flex: '2 1 260px' }}
          />
          <TextInput
            label="Description"
            placeholder="Optional"
            maxLength={500}
            value={description}
            onChange={(e) => setDescription(e.currentTarget.value)}
            style={{ flex: '3 1 260px' }}
          />
        </Group>
        <Group>
          <Button
            type="submit"
            leftSection={<IconPlus size={16} />}
            loading={add.isPending}
            disabled={!!live.error}
          >
            {kind === 'Allowed' ? 'Allow' : 'Exclude'}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** What the server says of the text as it is typed: an error for a refused entry, else its size. */
function useLiveVerdict(kind: AllowedTargetKind, text: string): { error?: string; description?: string } {
  const [debounced] = useDebouncedValue(text.trim(), 300);
  // A wildcard is for allowed entries only, never a scan target: the check endpoint would refuse it.
  const wildcard = debounced.startsWith('*.');
  const check = useCheckTargets(debounced && !wildcard ? { Targets: [{ Range: debounced }] } : null);
  if (!debounced) return {};
  if (wildcard) return { description: `Any host name below ${debounced.slice(2)}.` };
  const verdict = check.data?.Items[0];
  if (!verdict || verdict.Range !== debounced) return {};
  if (verdict.Rule && ENTRY_RULES[kind].includes(verdict.Rule))
    return { error: verdict.Message ?? verdict.Rule };
  const count = verdict.AddressCount;
  return { description: `${count.toLocaleString('en')} ${count === 1 ? 'address' : 'addresses'} to scan.` };
}
