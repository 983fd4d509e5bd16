import { Anchor, Card, Stack, Title } from '@mantine/core';
import { Link } from 'react-router';
import { useImport } from '../../api/imports';
import { systemScans } from '../../api/systemscans';
import type { FindingDetail } from '../../api/types';
import { webScans } from '../../api/webscans';
import { DateTime } from '../../components/DateTime';
import { Fact } from '../../components/Fact';
import { EvidenceText } from './EvidenceCard';

type FoundBy = NonNullable<FindingDetail['FoundBy']>;

/** A finding of Rampart's own scans: what the scan saw, which scan it was and the run that saw it last. */
export function ScanEvidenceCard({ foundBy, evidence }: { foundBy: FoundBy; evidence: string | null }) {
  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="scan-evidence-title">
      <Title order={2} size="h4" id="scan-evidence-title" mb="sm">
        Scan evidence
      </Title>
      <Stack gap="sm">
        <Stack gap={6} component="dl" m={0}>
          <Fact label={foundBy.Kind === 'Web' ? 'Web scan' : 'System scan'}>
            <ScanLink foundBy={foundBy} />
          </Fact>
          <Fact label="Last seen by the run">
            <RunLink importId={foundBy.ImportId} />
          </Fact>
        </Stack>
        <EvidenceText evidence={evidence} none="The scan kept no evidence." />
      </Stack>
    </Card>
  );
}

function ScanLink({ foundBy }: { foundBy: FoundBy }) {
  const hooks = foundBy.Kind === 'Web' ? webScans : systemScans;
  const scan = hooks.useOne(foundBy.ScanId);
  const path = `${foundBy.Kind === 'Web' ? '/web-scans' : '/system-scans'}/${foundBy.ScanId}`;
  // A deleted scan leaves its findings: they still say which scan it was, without a link.
  if (scan.isError) return <>A deleted scan</>;
  return (
    <Anchor component={Link} to={path} size="sm">
      {scan.data?.Name ?? 'Open the scan'}
    </Anchor>
  );
}

function RunLink({ importId }: { importId: string | null }) {
  const results = useImport(importId ?? '');
  if (!importId) return <>—</>;
  const at = results.data?.FinishedAt ?? results.data?.CreatedAt;
  return (
    <Anchor component={Link} to={`/imports/${importId}`} size="sm">
      {at ? <DateTime value={at} /> : 'Its results'}
    </Anchor>
  );
}
