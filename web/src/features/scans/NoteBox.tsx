import { Paper, Text } from '@mantine/core';
import type { ReactNode } from 'react';

/** A titled box of lines about a run: what it refused, where its budget ran out, what it did not report. */
export function NoteBox({
  title,
  testId,
  children,
}: {
  title: ReactNode;
  testId: string;
  children: ReactNode;
}) {
  return (
    <Paper withBorder p="sm" radius="md" data-testid={testId}>
      <Text size="sm" fw={600}>
        {title}
      </Text>
      {children}
    </Paper>
  );
}
