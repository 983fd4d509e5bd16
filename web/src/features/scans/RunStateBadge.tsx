import { Badge, Loader } from '@mantine/core';
import type { RunState } from '../../api/scans';

const COLORS: Record<RunState, string> = {
  Idle: 'gray',
  Queued: 'gray',
  Running: 'blue',
  Stopping: 'orange',
  Completed: 'green',
  Failed: 'red',
  Stopped: 'yellow',
};

const LABELS: Record<RunState, string> = {
  Idle: 'Never run',
  Queued: 'Queued',
  Running: 'Running',
  Stopping: 'Stopping',
  Completed: 'Completed',
  Failed: 'Failed',
  Stopped: 'Stopped',
};

export function RunStateBadge({ state, title }: { state: RunState; title?: string | null }) {
  return (
    <Badge
      color={COLORS[state]}
      variant="light"
      title={title ?? undefined}
      leftSection={state === 'Running' ? <Loader size={10} color="blue" aria-hidden /> : undefined}
      styles={{ root: { flexShrink: 0, overflow: 'visible' }, label: { overflow: 'visible' } }}
    >
      {LABELS[state]}
    </Badge>
  );
}
