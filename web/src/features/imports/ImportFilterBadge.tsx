import { Badge, CloseButton, Group, Text } from '@mantine/core';
import { type ImportChange, useImport } from '../../api/imports';
import { importName } from './format';

const CHANGE_WORDS: Record<ImportChange, string> = {
  New: 'new findings',
  Fixed: 'findings it fixed',
  Reopened: 'findings it reopened',
};

/** On the findings list: the filter "what this import changed", with a button that removes it. */
export function ImportFilterBadge({
  importId,
  change,
  onRemove,
}: {
  importId: string;
  change: ImportChange | undefined;
  onRemove: () => void;
}) {
  const item = useImport(importId);
  const name = item.data ? importName(item.data) : 'an import';
  return (
    <Group gap="xs">
      <Badge
        variant="light"
        size="lg"
        tt="none"
        maw="100%"
        rightSection={
          <CloseButton
            size="xs"
            variant="transparent"
            onClick={onRemove}
            aria-label="Remove the import filter"
          />
        }
        styles={{ label: { overflow: 'hidden', textOverflow: 'ellipsis' } }}
      >
        From import {name}
      </Badge>
      <Text size="sm" c="dimmed">
        {change ? `Only the ${CHANGE_WORDS[change]}.` : 'The findings it created, fixed or reopened.'}
      </Text>
    </Group>
  );
}
