import { Anchor, Card, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import {
  FINDING_TRANSITIONS,
  type StateChange,
  useChangeFindingState,
  useFinding,
  useOverrideSeverity,
} from '../../api/findings';
import { useSignedInSession } from '../../api/session';
import { type FindingDetail, type FindingState, hasRole } from '../../api/types';
import { FindingStateBadge, SeverityBadge } from '../../components/Badges';
import { DetailPage } from '../../components/DetailPage';
import { ErrorAlert } from '../../components/QueryError';
import { KevBadge } from '../../components/Risk';
import { findingStateLabel } from '../../labels';
import { IMPORTED_REASON, VerifyFindingsButton } from '../verify/VerifyButton';
import { EventTimeline } from './EventTimeline';
import { EvidenceCard } from './EvidenceCard';
import { FindingActions } from './FindingActions';
import { FindingFactsCard } from './FindingFactsCard';
import { ScanEvidenceCard } from './ScanEvidenceCard';
import { SeverityModal } from './SeverityModal';
import { type JustifiedState, StateModal } from './StateModal';
import { VulnerabilityCard } from './VulnerabilityCard';

export default function FindingDetailPage() {
  const { id = '' } = useParams();
  const finding = useFinding(id);
  return (
    <DetailPage query={finding} title={finding.data?.Title ?? 'Finding'}>
      {(data) => <FindingView finding={data} />}
    </DetailPage>
  );
}

function FindingView({ finding }: { finding: FindingDetail }) {
  const role = useSignedInSession().User.Role;
  const canChange = hasRole(role, 'Analyst');
  const canAccept = hasRole(role, 'Manager');
  const change = useChangeFindingState(finding.Id);
  const override = useOverrideSeverity(finding.Id);
  const [modal, setModal] = useState<JustifiedState | null>(null);
  const [overriding, setOverriding] = useState(false);

  const allowed = FINDING_TRANSITIONS[finding.State] ?? [];
  const overridden = finding.Severity !== finding.ScannerSeverity || finding.SeverityOverrideReason !== null;

  const move = (body: StateChange) => {
    change.mutate(body, {
      onSuccess: (detail) => {
        setModal(null);
        notifications.show({
          color: 'green',
          message: `Finding is now ${findingStateLabel(detail.State).toLowerCase()}.`,
        });
      },
    });
  };
  const ask = (target: JustifiedState) => {
    change.reset();
    setModal(target);
  };
  const direct = (state: FindingState) => {
    change.reset();
    move({ State: state });
  };

  return (
    <Stack gap="lg">
      <div>
        <Title order={1} style={{ overflowWrap: 'anywhere' }}>
          {finding.Title}
        </Title>
        <Group gap="xs" mt="xs">
          <SeverityBadge severity={finding.Severity} />
          {overridden && (
            <Text size="xs" c="dimmed">
              (scanner: {finding.ScannerSeverity})
            </Text>
          )}
          <FindingStateBadge state={finding.State} />
          {finding.Kev && <KevBadge dueDate={finding.KevDueDate} />}
          <Text size="sm" c="dimmed">
            on{' '}
            <Anchor component={Link} to={`/assets/${finding.AssetId}`} size="sm">
              {finding.AssetName}
            </Anchor>
          </Text>
        </Group>
      </div>

      {canChange && (
        <FindingActions
          verify={
            <VerifyFindingsButton
              variant="default"
              findingIds={[finding.Id]}
              titles={new Map([[finding.Id, finding.Title]])}
              unavailable={finding.FoundBy ? undefined : IMPORTED_REASON}
            />
          }
          allowed={allowed}
          canAccept={canAccept}
          moving={change.isPending && !modal}
          direct={direct}
          ask={ask}
          onOverride={() => {
            override.reset();
            setOverriding(true);
          }}
        />
      )}
      {!modal && <ErrorAlert error={change.error} />}

      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
        <FindingFactsCard finding={finding} />
        {finding.FoundBy ? (
          <ScanEvidenceCard foundBy={finding.FoundBy} evidence={finding.Evidence} />
        ) : (
          <EvidenceCard evidence={finding.Evidence} />
        )}
      </SimpleGrid>

      <VulnerabilityCard id={finding.VulnerabilityId} />

      <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="history-title">
        <Title order={2} size="h4" id="history-title" mb="md">
          History
        </Title>
        <EventTimeline events={finding.Events} subject="finding" />
      </Card>

      <StateModal
        target={modal}
        onClose={() => setModal(null)}
        subject={`“${finding.Title}”`}
        pending={change.isPending}
        error={change.error}
        onApply={move}
      />
      <SeverityModal
        opened={overriding}
        onClose={() => setOverriding(false)}
        finding={finding}
        pending={override.isPending}
        error={override.error}
        onSave={(body) =>
          override.mutate(body, {
            onSuccess: (detail) => {
              setOverriding(false);
              notifications.show({ color: 'green', message: `Severity is now ${detail.Severity}.` });
            },
          })
        }
      />
    </Stack>
  );
}
