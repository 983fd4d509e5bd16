import { Paper, Text } from '@mantine/core';
import type { ReactNode } from 'react';

/** Where a list has nothing yet: what is missing (the title) and how it comes (the children). */
export function EmptyState({
  title,
  narrow,
  children,
}: {
  title: string;
  narrow?: boolean;
  children: ReactNode;
}) {
  return (
    <Paper withBorder radius="md" p="xl" ta="center">
      <Text fw={600}>{title}</Text>
      <Text size="sm" c="dimmed" mt={4} {...(narrow && { maw: 560, mx: 'auto' })}>
        {children}
      </Text>
    </Paper>
  );
}

/** A quiet line in a bordered box where a part of a page has nothing to show. */
export function EmptyNote({ children }: { children: ReactNode }) {
  return (
    <Paper withBorder p="lg" ta="center">
      <Text size="sm" c="dimmed">
        {children}
      </Text>
    </Paper>
  );
}
