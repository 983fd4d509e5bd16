import { Anchor, Card, Group, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import type { FindingDetail } from '../../api/types';
import { vulnerabilityPath } from '../../api/vulnerabilities';
import { DateOnly, Day, DueDate } from '../../components/Badges';
import { DateTime } from '../../components/DateTime';
import { Fact } from '../../components/Fact';
import { formatProbability, formatTopShare } from '../../components/Risk';
import { describeLocation } from './location';

/** A finding's scores, dates, place and the reasons for its state and severity. */
export function FindingFactsCard({ finding }: { finding: FindingDetail }) {
  return (
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
        <Fact label="CVSS">
          {finding.CVSSBaseScore === null
            ? '—'
            : `${finding.CVSSBaseScore}${finding.CvssVersion ? ` (v${finding.CvssVersion})` : ''}`}
        </Fact>
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
          <Fact label="CISA KEV due date">
            <Day value={finding.KevDueDate} />
            <Text component="span" size="sm" c="dimmed">
              {' '}
              (CISA's deadline for US federal agencies, for context; this finding is due by your KEV SLA)
            </Text>
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
  );
}
