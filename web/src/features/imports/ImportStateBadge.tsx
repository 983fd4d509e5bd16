import { Badge, Loader } from '@mantine/core';
import type { ImportState } from '../../api/imports';

const COLORS: Record<ImportState, string> = {
  Queued: 'gray',
  Running: 'blue',
  Completed: 'green',
  Failed: 'red',
};

export function ImportStateBadge({ state }: { state: ImportState }) {
  return (
    <Badge
      color={COLORS[state] ?? 'gray'}
      variant="light"
      leftSection={state === 'Running' ? <Loader size={10} color="blue" aria-hidden /> : undefined}
      styles={{ root: { flexShrink: 0, overflow: 'visible' }, label: { overflow: 'visible' } }}
    >
      {state}
    </Badge>
  );
}
