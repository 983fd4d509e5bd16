import { Badge, Loader } from '@mantine/core';
import type { DiscoveryRunState } from '../../api/discovery';

const COLORS: Record<DiscoveryRunState, string> = {
  Idle: 'gray',
  Queued: 'gray',
  Running: 'blue',
  Stopping: 'orange',
  Completed: 'green',
  Failed: 'red',
  Stopped: 'yellow',
};

const LABELS: Record<DiscoveryRunState, string> = {
  Idle: 'Never run',
  Queued: 'Queued',
  Running: 'Running',
  Stopping: 'Stopping',
  Completed: 'Completed',
  Failed: 'Failed',
  Stopped: 'Stopped',
};

export function RunStateBadge({ state, title }: { state: DiscoveryRunState; title?: string | null }) {
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
