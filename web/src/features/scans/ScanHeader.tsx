import { Group, Text, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useNavigate } from 'react-router';
import { isActive } from '../../api/scans';
import { useSignedInSession } from '../../api/session';
import { hasRole } from '../../api/types';
import { ConfirmModal } from '../../components/ConfirmModal';
import { EditDeleteButtons } from '../../components/EditDeleteButtons';
import { RunButtons } from './RunButtons';
import { RunStateBadge } from './RunStateBadge';
import { type ListedScan, type ScanViewProps, wordsOf } from './view';

/** A scan page's title, run state, the kind's note, Run now / Stop, Edit and Delete (confirmed). */
export function ScanHeader<S extends ListedScan, B, F extends string>({
  view,
  scan,
  onEdit,
}: ScanViewProps<S, B, F> & { onEdit: () => void }) {
  const role = useSignedInSession().User.Role;
  const [deleteOpened, confirmDelete] = useDisclosure(false);
  const start = view.hooks.useStart();
  const stop = view.hooks.useStop();
  const remove = view.hooks.useDelete();
  const navigate = useNavigate();
  const Note = view.HeaderNote;
  return (
    <Group justify="space-between" align="flex-start">
      <div>
        <Group gap="sm">
          <Title order={1}>{scan.Name}</Title>
          <div aria-live="polite">
            <RunStateBadge state={scan.RunState} title={scan.LastRun?.Error} />
          </div>
        </Group>
        {Note && <Note scan={scan} />}
      </div>
      <Group gap="xs">
        {hasRole(role, 'Analyst') && <RunButtons scan={scan} start={start} stop={stop} />}
        {hasRole(role, 'Manager') && (
          <EditDeleteButtons
            onEdit={onEdit}
            onDelete={confirmDelete.open}
            deleteDisabled={isActive(scan.RunState)}
          />
        )}
      </Group>
      <ConfirmModal
        opened={deleteOpened}
        onClose={confirmDelete.close}
        title={`Delete ${view.labels.noun}`}
        confirmLabel="Delete"
        mutation={remove}
        onConfirm={() => remove.mutate(scan.Id, { onSuccess: () => navigate(view.path) })}
      >
        <Text size="sm">{wordsOf(view.labels).deleteText(scan)}</Text>
      </ConfirmModal>
    </Group>
  );
}
