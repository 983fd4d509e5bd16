import { Button } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { errorMessage } from '../../api/client';
import { isActive, type RunState } from '../../api/scans';
import { IconPlayerPlay, IconPlayerStop } from '../../icons';

/** Start or stop, as a kind's hooks offer it. */
export interface RunMutation {
  mutate: (id: string, options: { onError: (error: unknown) => void }) => void;
  isPending: boolean;
}

const fail = (error: unknown) => notifications.show({ color: 'red', message: errorMessage(error) });

/** Run now, or Stop while a run is under way. */
export function RunButtons({
  scan,
  start,
  stop,
}: {
  scan: { Id: string; RunState: RunState };
  start: RunMutation;
  stop: RunMutation;
}) {
  return isActive(scan.RunState) ? (
    <Button
      size="xs"
      variant="light"
      color="orange"
      leftSection={<IconPlayerStop size={14} />}
      loading={stop.isPending}
      disabled={scan.RunState === 'Stopping'}
      onClick={() => stop.mutate(scan.Id, { onError: fail })}
    >
      Stop
    </Button>
  ) : (
    <Button
      size="xs"
      variant="light"
      leftSection={<IconPlayerPlay size={14} />}
      loading={start.isPending}
      onClick={() => start.mutate(scan.Id, { onError: fail })}
    >
      Run now
    </Button>
  );
}
