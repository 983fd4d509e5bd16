import { ActionIcon, Code, CopyButton, Group, Stack, Text, Tooltip } from '@mantine/core';
import { useId } from 'react';
import { IconCheck, IconCopy } from '../icons';

interface CopyValueProps {
  label: string;
  value: string;
  copyLabel: string;
  testId?: string;
  /** Multi-line display, for commands. */
  block?: boolean;
}

/** A value the user must take away (a key, a password, a command), with a copy button. */
export function CopyValue({ label, value, copyLabel, testId, block = false }: CopyValueProps) {
  const id = useId();
  return (
    <Stack gap={4}>
      <Text size="sm" fw={500} id={id}>
        {label}
      </Text>
      <Group gap="xs" wrap="nowrap" align="flex-start">
        <Code
          block={block}
          className="secret-value"
          data-testid={testId}
          aria-labelledby={id}
          style={{ flex: 1, fontSize: 'var(--mantine-font-size-sm)', padding: '6px 10px' }}
        >
          {value}
        </Code>
        <CopyButton value={value} timeout={2000}>
          {({ copied, copy }) => (
            <Tooltip label={copied ? 'Copied' : 'Copy'} withArrow>
              <ActionIcon
                variant={copied ? 'filled' : 'default'}
                color={copied ? 'teal' : undefined}
                size="lg"
                aria-label={copyLabel}
                onClick={copy}
              >
                {copied ? <IconCheck size={18} /> : <IconCopy size={18} />}
              </ActionIcon>
            </Tooltip>
          )}
        </CopyButton>
      </Group>
    </Stack>
  );
}
