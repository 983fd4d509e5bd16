import { Button, Group } from '@mantine/core';
import { useEffect, useRef } from 'react';

/**
 * Done, under a secret shown once (a key, a token, a password). The form or button that had the
 * focus is gone when it appears: it takes the focus, the one way forward.
 */
export function DoneButton({ onDone }: { onDone: () => void }) {
  const ref = useRef<HTMLButtonElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <Group justify="flex-end">
      <Button ref={ref} onClick={onDone}>
        Done
      </Button>
    </Group>
  );
}
