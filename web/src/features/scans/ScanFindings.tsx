import { Stack, Title } from '@mantine/core';
import { useMemo } from 'react';
import { FINDING_STATES } from '../../api/findings';
import type { FindingFilter } from '../../api/types';
import { FindingsTable } from '../findings/FindingsTable';

/** The findings a Rampart scan found, in every state (a Fixed one shows the scan no longer sees it). */
export function ScanFindings({ scanId }: { scanId: string }) {
  const filter = useMemo<FindingFilter>(() => ({ ScanId: scanId, State: [...FINDING_STATES] }), [scanId]);
  return (
    <Stack gap="sm" component="section" aria-labelledby="scan-findings-title" data-testid="scan-findings">
      <Title order={2} size="h4" id="scan-findings-title">
        Findings
      </Title>
      <FindingsTable filter={filter} sort="-Risk" emptyText="This scan has found nothing yet." />
    </Stack>
  );
}
