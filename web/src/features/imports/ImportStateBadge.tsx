import { Badge, Loader } from '@mantine/core';
import type { ImportAttention, ImportState } from '../../api/imports';
import { IconAlertTriangle } from '../../icons';

const COLORS: Record<ImportState, string> = {
  Queued: 'gray',
  Running: 'blue',
  Completed: 'green',
  Failed: 'red',
};

/**
 * An import's or a feed load's state. A Completed import that stored little or nothing of what
 * it read is not shown green: it needs a look as much as a failed one.
 */
export function ImportStateBadge({
  state,
  attention,
}: {
  state: ImportState;
  attention?: ImportAttention | null;
}) {
  const flagged = state === 'Completed' && !!attention;
  return (
    <Badge
      color={flagged ? 'orange' : (COLORS[state] ?? 'gray')}
      variant={flagged ? 'filled' : 'light'}
      leftSection={
        state === 'Running' ? (
          <Loader size={10} color="blue" aria-hidden />
        ) : flagged ? (
          <IconAlertTriangle size={12} aria-hidden />
        ) : undefined
      }
      title={flagged ? attention.Detail : undefined}
      styles={{ root: { flexShrink: 0, overflow: 'visible' }, label: { overflow: 'visible' } }}
    >
      {flagged ? 'Needs attention' : state}
    </Badge>
  );
}
