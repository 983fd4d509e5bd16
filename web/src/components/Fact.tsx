import { Group, Text } from '@mantine/core';
import type { ReactNode } from 'react';

/** One term and its value in a details list (inside a `<dl>`). */
export function Fact({
  label,
  children,
  width = 140,
}: {
  label: string;
  children: ReactNode;
  width?: number;
}) {
  return (
    <Group gap="sm" wrap="nowrap" align="baseline">
      <Text component="dt" size="sm" c="dimmed" w={width} style={{ flexShrink: 0 }}>
        {label}
      </Text>
      <Text component="dd" size="sm" m={0} style={{ overflowWrap: 'anywhere', minWidth: 0 }}>
        {children}
      </Text>
    </Group>
  );
}
