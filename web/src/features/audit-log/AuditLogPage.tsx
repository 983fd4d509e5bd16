import {
  Anchor,
  Autocomplete,
  Button,
  Code,
  Group,
  Paper,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
} from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { useMemo, useState } from 'react';
import { type AuditEntry, type AuditFilter, downloadAuditLogCsv, useAuditLog } from '../../api/auditlog';
import { errorMessage } from '../../api/client';
import { saveBlob } from '../../api/download';
import { useUserDirectory } from '../../api/users';
import { dayInputToIso } from '../../components/Badges';
import { DateTime } from '../../components/DateTime';
import { DayInput } from '../../components/DayInput';
import { EmptyState } from '../../components/EmptyState';
import { FilterTextInput } from '../../components/FilterTextInput';
import { LoadMore } from '../../components/LoadMore';
import { PageHeader } from '../../components/PageHeader';
import { TableSkeleton } from '../../components/PageSkeleton';
import { QueryError } from '../../components/QueryError';
import { TableHead } from '../../components/TableHead';
import { useUrlState } from '../../components/useUrlState';
import { IconDownload } from '../../icons';
import { plural } from '../../labels';
import { ACTION_SUGGESTIONS, TARGET_TYPES } from './actions';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ACTION = /^[A-Za-z0-9_.-]{1,100}\*?$/;
const ACTOR_TYPES = [
  { value: 'user', label: 'User (web app)' },
  { value: 'apikey', label: 'API key' },
  { value: 'system', label: 'System' },
  { value: 'cli', label: 'Command line' },
] as const;

/** The audit log: who did what and when, filtered, paged, and downloadable as CSV (Admins). */
export default function AuditLogPage() {
  useDocumentTitle('Audit log · Rampart');
  const [params, update] = useUrlState();
  const users = useUserDirectory();
  const actor = params.get('Actor') ?? '';
  const actorType = params.get('ActorType') ?? '';
  const action = params.get('Action') ?? '';
  const targetType = params.get('TargetType') ?? '';
  const targetId = params.get('TargetId') ?? '';
  const from = params.get('From') ?? '';
  const to = params.get('To') ?? '';
  // Values the server would refuse (typed into the address) are left out rather than failing the page.
  const filter = useMemo<AuditFilter>(
    () => ({
      Actor: actor === 'system' || actor === 'cli' || UUID.test(actor) ? actor : undefined,
      ActorType: ACTOR_TYPES.some((t) => t.value === actorType)
        ? (actorType as AuditFilter['ActorType'])
        : undefined,
      Action: ACTION.test(action) ? action : undefined,
      TargetType: ACTION.test(targetType) ? targetType : undefined,
      TargetId: UUID.test(targetId) ? targetId : undefined,
      From: dayInputToIso(from),
      To: dayInputToIso(to, true),
    }),
    [actor, actorType, action, targetType, targetId, from, to],
  );
  const log = useAuditLog(filter);
  const [exporting, setExporting] = useState(false);
  const rows = log.data?.pages.flatMap((page) => page.Items) ?? [];
  const total = log.data?.pages.at(-1)?.TotalCount;
  const filtered = Object.values(filter).some((v) => v !== undefined);
  const rangeError = from && to && from > to ? 'The first day comes after the last.' : undefined;

  const actorOptions = useMemo(() => {
    const options = [
      { value: 'system', label: 'System' },
      { value: 'cli', label: 'Command line' },
      ...(users.data ?? []).map((u) => ({ value: u.Id, label: `${u.Name} (${u.Email})` })),
    ];
    // An API key chosen from the table is not in the directory: keep it selectable by its name.
    if (actor && !options.some((o) => o.value === actor)) {
      const named = rows.find((r) => r.ActorId === actor)?.ActorName;
      options.push({ value: actor, label: named ? `${named} (API key)` : actor });
    }
    return options;
  }, [users.data, actor, rows]);

  const exportCsv = async () => {
    setExporting(true);
    try {
      saveBlob(await downloadAuditLogCsv(filter), 'auditlog.csv');
    } catch (error) {
      notifications.show({ color: 'red', title: 'Download failed', message: errorMessage(error) });
    } finally {
      setExporting(false);
    }
  };

  return (
    <Stack gap="md">
      <PageHeader
        title="Audit log"
        action={
          <Button
            variant="default"
            leftSection={<IconDownload size={16} />}
            onClick={exportCsv}
            loading={exporting}
          >
            Download CSV
          </Button>
        }
      >
        Who did what, and when: sign-ins, keys, roles, risk decisions, settings, scans, imports, deletions and
        downloads. Entries cannot be changed; they are kept for the retention set in Settings.
      </PageHeader>

      <Paper withBorder p="sm" radius="md" component="section" aria-label="Filters">
        <SimpleGrid cols={{ base: 1, sm: 2, md: 4 }} spacing="sm">
          <Select
            label="Actor"
            placeholder="Anyone"
            data={actorOptions}
            value={actor || null}
            onChange={(value) => update({ Actor: value ?? undefined })}
            searchable
            clearable
          />
          <Select
            label="Actor type"
            placeholder="Any"
            data={ACTOR_TYPES.map((t) => ({ ...t }))}
            value={actorType || null}
            onChange={(value) => update({ ActorType: value ?? undefined })}
            clearable
          />
          <ActionFilter value={action} onCommit={(value) => update({ Action: value })} />
          <Select
            label="Target type"
            placeholder="Anything"
            data={[...TARGET_TYPES]}
            value={targetType || null}
            onChange={(value) => update({ TargetType: value ?? undefined })}
            searchable
            clearable
          />
          <FilterTextInput
            label="Target id"
            placeholder="The id of a user, key, scan…"
            maxLength={36}
            value={targetId}
            validate={(value) => (UUID.test(value) ? undefined : 'Enter an id (a UUID).')}
            onCommit={(value) => update({ TargetId: value })}
          />
          <DayInput label="From" value={from} onChange={(value) => update({ From: value })} />
          <DayInput label="To" value={to} onChange={(value) => update({ To: value })} error={rangeError} />
          {filtered && (
            <Group align="flex-end">
              <Button
                variant="subtle"
                onClick={() =>
                  update({
                    Actor: undefined,
                    ActorType: undefined,
                    Action: undefined,
                    TargetType: undefined,
                    TargetId: undefined,
                    From: undefined,
                    To: undefined,
                  })
                }
              >
                Clear filters
              </Button>
            </Group>
          )}
        </SimpleGrid>
      </Paper>

      {log.isPending ? (
        <TableSkeleton rows={6} />
      ) : log.isError && !log.data ? (
        <QueryError error={log.error} onRetry={() => log.refetch()} />
      ) : rows.length === 0 ? (
        <EmptyState title={filtered ? 'No entries match these filters' : 'Nothing recorded yet'} narrow>
          {filtered
            ? 'Widen the time range or clear a filter.'
            : 'Sign-ins, changes to users, keys and settings, scans and imports appear here as they happen.'}
        </EmptyState>
      ) : (
        <>
          <Text size="sm" fw={600} aria-live="polite">
            {plural(total ?? rows.length, 'entry', 'entries')}
          </Text>
          <Table.ScrollContainer minWidth={960} scrollAreaProps={{ type: 'auto' }}>
            <Table striped highlightOnHover verticalSpacing={6} fz="sm" aria-label="Audit log entries">
              <TableHead columns={['Time', 'Actor', 'Action', 'Target', 'Details', 'Address']} />
              <Table.Tbody>
                {rows.map((entry) => (
                  <EntryRow
                    key={entry.Id}
                    entry={entry}
                    onActor={(id) => update({ Actor: id })}
                    onAction={(name) => update({ Action: name })}
                    onTarget={(type, id) => update({ TargetType: type, TargetId: id })}
                  />
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          <LoadMore query={log} shown={rows.length} total={total} what="entries" />
        </>
      )}
    </Stack>
  );
}

/** The action filter: a name, or a prefix ending in "." or "*", with the known names offered. */
function ActionFilter({ value, onCommit }: { value: string; onCommit: (value: string) => void }) {
  const [text, setText] = useState(value);
  const [seen, setSeen] = useState(value);
  if (seen !== value) {
    setSeen(value);
    setText(value);
  }
  const error = text && !ACTION.test(text) ? 'Letters, digits, . _ - and a final * only.' : undefined;
  return (
    <Autocomplete
      label="Action"
      placeholder="e.g. apikey. or session.signed_in"
      data={[...ACTION_SUGGESTIONS]}
      value={text}
      maxLength={100}
      onChange={setText}
      onOptionSubmit={(option) => onCommit(option)}
      onBlur={() => !error && text !== value && onCommit(text.trim())}
      onKeyDown={(event) => {
        if (event.key === 'Enter' && !error) onCommit(text.trim());
      }}
      error={error}
      limit={20}
    />
  );
}

function EntryRow({
  entry,
  onActor,
  onAction,
  onTarget,
}: {
  entry: AuditEntry;
  onActor: (id: string) => void;
  onAction: (name: string) => void;
  onTarget: (type: string, id: string) => void;
}) {
  const actorId =
    entry.ActorId ?? (entry.ActorType === 'system' || entry.ActorType === 'cli' ? entry.ActorType : null);
  // "Name <email>" (a user) is shown as the name, with the email below it.
  const [, userName, email] = /^(.*) <([^<>]+)>$/.exec(entry.ActorName ?? '') ?? [];
  const actorName =
    userName ?? entry.ActorName ?? (entry.ActorId ? `Unknown (…${entry.ActorId.slice(-8)})` : '—');
  const kind = ACTOR_TYPES.find((t) => t.value === entry.ActorType)?.label ?? entry.ActorType;
  return (
    <Table.Tr>
      <Table.Td style={{ whiteSpace: 'nowrap' }}>
        <DateTime value={entry.Time} />
      </Table.Td>
      <Table.Td style={{ overflowWrap: 'break-word' }}>
        {actorId ? (
          <Anchor
            component="button"
            type="button"
            size="sm"
            ta="start"
            onClick={() => onActor(actorId)}
            title={`Show only what ${entry.ActorName ?? actorName} did`}
          >
            {actorName}
          </Anchor>
        ) : (
          actorName
        )}
        {email && (
          <Text size="xs" c="dimmed">
            {email}
          </Text>
        )}
        {kind !== actorName && (
          <Text size="xs" c="dimmed">
            {kind}
          </Text>
        )}
      </Table.Td>
      <Table.Td>
        <Anchor
          component="button"
          type="button"
          size="sm"
          ff="monospace"
          ta="start"
          onClick={() => onAction(entry.Action)}
          title={`Show only ${entry.Action}`}
        >
          {entry.Action}
        </Anchor>
      </Table.Td>
      <Table.Td style={{ overflowWrap: 'break-word' }}>
        {entry.TargetType && entry.TargetId ? (
          <Anchor
            component="button"
            type="button"
            size="sm"
            ta="start"
            onClick={() => onTarget(entry.TargetType as string, entry.TargetId as string)}
            title={`Show everything about ${entry.TargetType} ${entry.TargetId}`}
          >
            {entry.TargetType}
            <Text size="xs" c="dimmed" ff="monospace" style={{ whiteSpace: 'nowrap' }}>
              {/* The end of the id: UUIDv7s made close together share their start (a time). */}…
              {entry.TargetId.slice(-8)}
            </Text>
          </Anchor>
        ) : (
          (entry.TargetType ?? '—')
        )}
      </Table.Td>
      <Table.Td style={{ overflowWrap: 'anywhere', maxWidth: 360 }}>
        <Details details={entry.Details} />
        {entry.RequestId && (
          <Text size="xs" c="dimmed">
            Request {entry.RequestId}
          </Text>
        )}
      </Table.Td>
      <Table.Td style={{ whiteSpace: 'nowrap' }}>{entry.IpAddress ?? '—'}</Table.Td>
    </Table.Tr>
  );
}

/** An entry's details as "key: value" lines; nested values as compact JSON. */
function Details({ details }: { details: Record<string, unknown> }) {
  const pairs = Object.entries(details);
  if (pairs.length === 0)
    return (
      <Text span size="sm" c="dimmed">
        —
      </Text>
    );
  return (
    <Stack gap={0}>
      {pairs.map(([key, value]) => (
        <Text key={key} size="xs">
          <Text span size="xs" fw={600}>
            {key}
          </Text>
          :{' '}
          {typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? (
            String(value)
          ) : (
            <Code fz="xs">{JSON.stringify(value)}</Code>
          )}
        </Text>
      ))}
    </Stack>
  );
}
