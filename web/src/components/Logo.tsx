import { Group, Text, ThemeIcon } from '@mantine/core';
import { IconShieldCheck } from '../icons';

export function Logo({ size = 'md' }: { size?: 'md' | 'lg' }) {
  const large = size === 'lg';
  return (
    <Group gap={8} wrap="nowrap">
      <ThemeIcon size={large ? 40 : 30} radius="sm" variant="filled" aria-hidden>
        <IconShieldCheck size={large ? 26 : 20} />
      </ThemeIcon>
      <Text component="span" fw={700} fz={large ? 26 : 20} lh={1} style={{ letterSpacing: '-0.01em' }}>
        Rampart
      </Text>
    </Group>
  );
}
