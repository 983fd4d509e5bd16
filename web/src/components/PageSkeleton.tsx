import { Skeleton, Stack, VisuallyHidden } from '@mantine/core';

/** Stands in for a page while its code downloads. */
export function PageSkeleton() {
  return (
    <Stack gap="md" role="status">
      <VisuallyHidden>Loading…</VisuallyHidden>
      <Skeleton height={32} width={240} />
      <Skeleton height={16} width="60%" />
      <Skeleton height={160} />
      <Skeleton height={160} />
    </Stack>
  );
}

export function TableSkeleton({ rows = 3 }: { rows?: number }) {
  return (
    <Stack gap="xs" role="status">
      <VisuallyHidden>Loading…</VisuallyHidden>
      <Skeleton height={28} />
      {Array.from({ length: rows }, (_, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: placeholders without identity
        <Skeleton key={i} height={36} />
      ))}
    </Stack>
  );
}
