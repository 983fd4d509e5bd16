import { Group, List, Text, ThemeIcon } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import type { RequestOf, ResponseOf } from '../../api/types';
import { IconAlertTriangle, IconCheck } from '../../icons';
import { counted } from '../../labels';

type CheckBody = RequestOf<'checkScanTargets'>;
type CheckResult = ResponseOf<'checkScanTargets'>;

/** What the server says of the targets as they are typed: allowed or not, and why. */
export function useTargetCheck(targets: CheckBody['Targets'], exclusions: string[]) {
  const [body] = useDebouncedValue({ Targets: targets, Exclusions: exclusions }, 400);
  return useQuery({
    queryKey: ['allowed-targets', 'check', body],
    queryFn: ({ signal }) => api<CheckResult>('/allowedtargets/check', { method: 'POST', body, signal }),
    enabled: body.Targets.length > 0,
    staleTime: 10_000,
  });
}

export function TargetCheck({ result }: { result: CheckResult | undefined }) {
  if (!result) return null;
  return (
    <div aria-live="polite" data-testid="target-check">
      <List spacing={4} size="sm" center>
        {result.Items.map((item, i) => (
          <List.Item
            // biome-ignore lint/suspicious/noArrayIndexKey: the same range may be typed twice
            key={`${item.Range}-${i}`}
            icon={
              <ThemeIcon size={18} radius="xl" color={item.Allowed ? 'green' : 'red'} variant="light">
                {item.Allowed ? <IconCheck size={12} /> : <IconAlertTriangle size={12} />}
              </ThemeIcon>
            }
          >
            <Group gap={6} wrap="nowrap">
              <Text size="sm" ff="monospace">
                {item.Range}
              </Text>
              <Text size="sm" c={item.Allowed ? 'dimmed' : 'red'}>
                {item.Allowed ? counted(item.AddressCount, 'address', 'addresses') : item.Message}
              </Text>
            </Group>
          </List.Item>
        ))}
      </List>
      <Text size="xs" c="dimmed" mt={4}>
        {counted(result.AddressCount, 'address', 'addresses')} in all.
      </Text>
    </div>
  );
}
