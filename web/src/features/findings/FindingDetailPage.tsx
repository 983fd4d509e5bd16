import {
  Anchor,
  Button,
  Card,
  Code,
  Group,
  List,
  ScrollArea,
  SimpleGrid,
  Skeleton,
  Stack,
  Text,
  Title,
  Tooltip,
} from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
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
import { useVulnerability, vulnerabilityPath } from '../../api/vulnerabilities';
import { DateOnly, Day, DueDate, FindingStateBadge, SeverityBadge } from '../../components/Badges';
import { DateTime } from '../../components/DateTime';
import { Fact } from '../../components/Fact';
import { PageSkeleton } from '../../components/PageSkeleton';
import { ErrorAlert, QueryError } from '../../components/QueryError';
import { formatProbability, formatTopShare, KevBadge } from '../../components/Risk';
import { IconArrowRight } from '../../icons';
import { findingStateLabel } from '../../labels';
import { EventTimeline } from './EventTimeline';
import { describeLocation } from './location';
import { SeverityModal } from './SeverityModal';
import { type JustifiedState, StateModal } from './StateModal';

export default function FindingDetailPage() {
  const { id = '' } = useParams();
  const finding = useFinding(id);
  useDocumentTitle(`${finding.data?.Title ?? 'Finding'} · Rampart`);

  return (
    <Stack gap="lg">
      {finding.isPending ? (
        <PageSkeleton />
      ) : finding.isError ? (
        <QueryError error={finding.error} onRetry={() => finding.refetch()} />
      ) : (
        <FindingView finding={finding.data} />
      )}
    </Stack>
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
        <Group gap="sm" role="group" aria-label="Actions">
          {allowed.includes('Fixed') && (
            <Button onClick={() => direct('Fixed')} loading={change.isPending && !modal}>
              Mark fixed
            </Button>
          )}
          {allowed.includes('Reopened') && (
            <Button variant="default" onClick={() => direct('Reopened')} loading={change.isPending && !modal}>
              Reopen
            </Button>
          )}
          {allowed.includes('FalsePositive') && (
            <Button variant="default" onClick={() => ask('FalsePositive')}>
              False positive…
            </Button>
          )}
          {allowed.includes('RiskAccepted') && (
            <Tooltip label="Only Managers and Admins may accept a risk" disabled={canAccept}>
              <Button
                variant="default"
                onClick={() => ask('RiskAccepted')}
                disabled={!canAccept}
                aria-description={canAccept ? undefined : 'Only Managers and Admins may accept a risk'}
              >
                Accept risk…
              </Button>
            </Tooltip>
          )}
          {allowed.includes('Open') && (
            <Button variant="default" onClick={() => direct('Open')} loading={change.isPending && !modal}>
              Back to open
            </Button>
          )}
          <Button
            variant="subtle"
            onClick={() => {
              override.reset();
              setOverriding(true);
            }}
          >
            Override severity…
          </Button>
        </Group>
      )}
      {!modal && <ErrorAlert error={change.error} />}

      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
        <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="facts-title">
          <Title order={2} size="h4" id="facts-title" mb="sm">
            Details
          </Title>
          <Stack gap={6} component="dl" m={0}>
            <Fact label="Risk score">
              <Text component="span" fw={700} size="lg">
                {Math.round(finding.RiskScore)}
              </Text>
              <Text component="span" size="sm" c="dimmed">
                {' '}
                / 100
              </Text>
            </Fact>
            <Fact label="Due">
              <DueDate value={finding.DueAt} done={!['Open', 'Reopened'].includes(finding.State)} />
            </Fact>
            <Fact label="CVEs">
              {finding.CVEReferences.length ? (
                <Group gap={4}>
                  {finding.CVEReferences.map((cve) => (
                    <Anchor
                      key={cve}
                      component={Link}
                      to={`${vulnerabilityPath(finding.VulnerabilityId)}?${new URLSearchParams({ Cve: cve })}`}
                      size="sm"
                    >
                      {cve}
                    </Anchor>
                  ))}
                </Group>
              ) : (
                '—'
              )}
            </Fact>
            <Fact label="CVSS">{finding.CVSSBaseScore ?? '—'}</Fact>
            <Fact label="EPSS">
              {finding.EpssScore === null ? (
                '—'
              ) : (
                <>
                  {formatProbability(finding.EpssScore)}
                  {finding.EpssPercentile !== null && (
                    <Text component="span" size="sm" c="dimmed">
                      {' '}
                      ({formatTopShare(finding.EpssPercentile)})
                    </Text>
                  )}
                </>
              )}
            </Fact>
            {finding.KevDueDate && (
              <Fact label="KEV due date">
                <Day value={finding.KevDueDate} />
              </Fact>
            )}
            <Fact label="Location">{describeLocation(finding.Location)}</Fact>
            <Fact label="Source">{finding.Source}</Fact>
            <Fact label="First seen">
              <DateTime value={finding.FirstSeen} />
            </Fact>
            <Fact label="Last seen">
              <DateTime value={finding.LastSeen} />
            </Fact>
            {finding.FixedAt && (
              <Fact label="Fixed">
                <DateTime value={finding.FixedAt} />
              </Fact>
            )}
            {finding.RiskAcceptedUntil && (
              <Fact label="Risk accepted until">
                <DateOnly value={finding.RiskAcceptedUntil} />
              </Fact>
            )}
            {finding.StateReason && <Fact label="State reason">{finding.StateReason}</Fact>}
            {finding.SeverityOverrideReason && (
              <Fact label="Severity override">{finding.SeverityOverrideReason}</Fact>
            )}
          </Stack>
        </Card>

        <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="evidence-title">
          <Title order={2} size="h4" id="evidence-title" mb="sm">
            Evidence
          </Title>
          {finding.Evidence ? (
            <ScrollArea.Autosize mah={360} type="auto" tabIndex={0} aria-label="Evidence" role="region">
              <Code block style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
                {finding.Evidence}
              </Code>
            </ScrollArea.Autosize>
          ) : (
            <Text size="sm" c="dimmed">
              The scanner reported no evidence.
            </Text>
          )}
        </Card>
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

/** Links only to web addresses: a reference could be anything a scanner wrote. */
function isWebAddress(value: string): boolean {
  return /^https?:\/\//i.test(value);
}

function VulnerabilityCard({ id }: { id: string }) {
  const vulnerability = useVulnerability(id);
  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="vulnerability-title">
      <Group justify="space-between" gap="xs" mb="sm">
        <Title order={2} size="h4" id="vulnerability-title">
          Vulnerability
        </Title>
        <Anchor component={Link} to={vulnerabilityPath(id)} size="sm">
          <Group gap={4} component="span" wrap="nowrap">
            Intelligence and affected assets
            <IconArrowRight size={14} aria-hidden />
          </Group>
        </Anchor>
      </Group>
      {vulnerability.isPending ? (
        <Stack gap="xs" role="status" aria-label="Loading the vulnerability">
          <Skeleton height={16} />
          <Skeleton height={16} />
          <Skeleton height={16} width="60%" />
        </Stack>
      ) : vulnerability.isError ? (
        <QueryError error={vulnerability.error} onRetry={() => vulnerability.refetch()} />
      ) : (
        <Stack gap="md">
          <Group gap="lg">
            {vulnerability.data.CVSSBaseScore !== null && (
              <Text size="sm">
                <Text component="span" c="dimmed">
                  CVSS{' '}
                </Text>
                {vulnerability.data.CVSSBaseScore}
                {vulnerability.data.CvssVector && (
                  <Code ml={6} fz="xs">
                    {vulnerability.data.CvssVector}
                  </Code>
                )}
              </Text>
            )}
            {vulnerability.data.Cwe.length > 0 && (
              <Text size="sm">
                <Text component="span" c="dimmed">
                  CWE{' '}
                </Text>
                {vulnerability.data.Cwe.join(', ')}
              </Text>
            )}
            {vulnerability.data.PluginGuidId && (
              <Text size="sm">
                <Text component="span" c="dimmed">
                  Rule{' '}
                </Text>
                <Code>{vulnerability.data.PluginGuidId}</Code>
              </Text>
            )}
          </Group>
          <div>
            <Title order={3} size="h5" mb={4}>
              Description
            </Title>
            <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
              {vulnerability.data.Description || 'No description.'}
            </Text>
          </div>
          <div>
            <Title order={3} size="h5" mb={4}>
              Solution
            </Title>
            <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
              {vulnerability.data.Solution || 'No solution given.'}
            </Text>
          </div>
          {vulnerability.data.References.length > 0 && (
            <div>
              <Title order={3} size="h5" mb={4}>
                References
              </Title>
              <List size="sm" spacing={2}>
                {vulnerability.data.References.map((reference) => (
                  <List.Item key={reference} style={{ overflowWrap: 'anywhere' }}>
                    {isWebAddress(reference) ? (
                      <Anchor href={reference} target="_blank" rel="noopener noreferrer" size="sm">
                        {reference}
                      </Anchor>
                    ) : (
                      reference
                    )}
                  </List.Item>
                ))}
              </List>
            </div>
          )}
        </Stack>
      )}
    </Card>
  );
}
