import { Badge, Card, Group, Stack, Table, Text } from '@mantine/core';
import type { SystemHost, SystemLatestRun } from '../../api/systemscans';
import { TableHead } from '../../components/TableHead';
import { LatestRunReport } from '../scans/LatestRun';
import { NoteBox } from '../scans/NoteBox';
import { SoftwareCells } from '../scans/SoftwareCells';

/** The latest system run: budget notes, backported fixes, then each host with its services and checks. */
export function SystemRunReport({ report }: { report: SystemLatestRun }) {
  return (
    <LatestRunReport
      report={report}
      notes={
        <>
          <BudgetNotes hosts={report.Hosts} />
          <Backports report={report} />
        </>
      }
      items={report.Hosts}
      renderItem={(host) => <HostCard key={host.IpAddress} host={host} />}
      none={{ active: 'No host finished yet.', ended: 'No host answered.' }}
    />
  );
}

const BUDGET_WORDS = {
  port: 'some ports’ probes were cut short',
  host: 'the host’s time budget ran out',
  run: 'the run’s time budget ran out',
} as const;

/** Where a budget ran out: those ports were not judged, so their findings were left as they were. */
function BudgetNotes({ hosts }: { hosts: SystemHost[] }) {
  const short = hosts.filter((h) => h.BudgetExhausted);
  if (short.length === 0) return null;
  return (
    <NoteBox title="Budget notes" testId="budget-notes">
      {short.map((h) => (
        <Text size="sm" key={h.IpAddress}>
          {h.IpAddress}: {h.BudgetExhausted ? BUDGET_WORDS[h.BudgetExhausted] : ''}
          {h.UnscannedPorts.length > 0 &&
            `; not scanned: ${h.UnscannedPorts.slice(0, 20).join(', ')}${h.UnscannedPorts.length > 20 ? ', …' : ''}`}
        </Text>
      ))}
    </NoteBox>
  );
}

/** CVEs a distribution fixed in the build the banner names: not reported, and why. */
function Backports({ report }: { report: SystemLatestRun }) {
  const fixed = report.Backports.filter((b) => b.Status === 'Fixed');
  if (fixed.length === 0) return null;
  return (
    <NoteBox title="Backported fixes" testId="backports">
      {fixed.map((b) => (
        <Text size="sm" key={`${b.IpAddress}:${b.Port}:${b.Cve}`}>
          {b.Cve} on {b.IpAddress}
          {b.Port === null ? '' : `:${b.Port}`} not reported: {b.Evidence}
        </Text>
      ))}
    </NoteBox>
  );
}

function HostCard({ host }: { host: SystemHost }) {
  return (
    <Card withBorder radius="md" data-testid="system-host">
      <Group gap="sm" mb="xs">
        <Text fw={600} ff="monospace">
          {host.IpAddress}
        </Text>
        {host.Hostname && <Text c="dimmed">{host.Hostname}</Text>}
        {host.Answered ? (
          <Text size="sm" c="dimmed">
            Open ports: {host.OpenPorts.length ? host.OpenPorts.join(', ') : 'none'}
          </Text>
        ) : (
          <Badge
            color="gray"
            variant="light"
            title="No port accepted or refused a connection and it did not answer ARP: not an asset, not seen, its findings left as they were."
          >
            host did not answer
          </Badge>
        )}
      </Group>
      {host.Services.length > 0 && (
        <Table.ScrollContainer minWidth={760}>
          <Table fz="sm" verticalSpacing={4} striped aria-label={`Services on ${host.IpAddress}`}>
            <TableHead columns={['Port', 'Service', 'Product', 'Version', 'CPE', 'Detected by']} />
            <Table.Tbody>
              {host.Services.map((s) => (
                <Table.Tr key={s.Port}>
                  <Table.Td>
                    {s.Port}/tcp
                    {s.Tls && (
                      <Badge size="xs" variant="light" ml={4}>
                        TLS
                      </Badge>
                    )}
                  </Table.Td>
                  <Table.Td>{s.Service ?? '—'}</Table.Td>
                  <SoftwareCells software={s} />
                  <Table.Td>{s.DetectedBy === 'nmap' ? 'nmap -sV' : 'Rampart'}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {host.Checks.length > 0 && (
        <Stack gap={2} mt="xs">
          <Text size="sm" fw={600}>
            Checks that found something
          </Text>
          {host.Checks.map((c) => (
            <Text size="sm" key={`${c.CheckId}:${c.Port ?? ''}`}>
              {c.Title ?? c.CheckId}
              {c.Port !== null && ` (port ${c.Port})`}
            </Text>
          ))}
        </Stack>
      )}
    </Card>
  );
}
