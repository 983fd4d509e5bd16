import { Card, Group, Switch, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { useId, useState } from 'react';

/**
 * A dashboard panel: a titled card whose chart can give way to a table with the same figures
 * (the accessible alternative, and the way to read exact numbers). With nothing to show, it says
 * so instead of drawing empty axes.
 */
export function ChartCard({
  title,
  description,
  chart,
  table,
  empty,
  action,
}: {
  title: string;
  description?: ReactNode;
  chart: ReactNode;
  table: ReactNode;
  /** Why there is nothing to show; the chart and the table are left out. */
  empty?: string | false;
  action?: ReactNode;
}) {
  const [showTable, setShowTable] = useState(false);
  const titleId = useId();
  return (
    <Card withBorder padding="md" radius="md" component="section" aria-labelledby={titleId}>
      <Group justify="space-between" align="flex-start" wrap="nowrap" mb="xs" gap="xs">
        <div style={{ minWidth: 0 }}>
          <Title order={2} size="h5" id={titleId}>
            {title}
          </Title>
          {description && (
            <Text size="xs" c="dimmed">
              {description}
            </Text>
          )}
        </div>
        <Group gap="xs" wrap="nowrap">
          {action}
          {!empty && (
            <Switch
              size="xs"
              label="Show table"
              styles={{ label: { whiteSpace: 'nowrap' } }}
              checked={showTable}
              onChange={(e) => setShowTable(e.currentTarget.checked)}
              aria-label={`Show the figures of “${title}” as a table`}
            />
          )}
        </Group>
      </Group>
      {empty ? (
        <Text size="sm" c="dimmed" py="lg" ta="center">
          {empty}
        </Text>
      ) : showTable ? (
        table
      ) : (
        chart
      )}
    </Card>
  );
}
