import { Group, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';

/** A list page's heading: its title, what the page is for (the children), and its main action. */
export function PageHeader({
  title,
  action,
  children,
}: {
  title: string;
  action?: ReactNode;
  children: ReactNode;
}) {
  return (
    <Group justify="space-between" align="flex-end">
      <div>
        <Title order={1}>{title}</Title>
        <Text size="sm" c="dimmed">
          {children}
        </Text>
      </div>
      {action}
    </Group>
  );
}
