import { Anchor, Button, Card, Group, Table, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { Link } from 'react-router';
import { useUnlinkFindings } from '../../api/tickets';
import type { TicketDetail } from '../../api/types';
import { FindingStateBadge, SeverityBadge } from '../../components/Badges';
import { ErrorAlert } from '../../components/QueryError';
import { TableHead } from '../../components/TableHead';
import { LocationCell } from '../findings/location';

/** The findings the ticket follows; Analysts may remove them one by one. */
export function LinkedFindings({ ticket, canChange }: { ticket: TicketDetail; canChange: boolean }) {
  const unlink = useUnlinkFindings(ticket.Id);
  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="ticket-findings-title">
      <Group justify="space-between" mb="sm">
        <Title order={2} size="h4" id="ticket-findings-title">
          Findings
        </Title>
      </Group>
      <ErrorAlert error={unlink.error} />
      {ticket.Findings.length === 0 ? (
        <Text size="sm" c="dimmed">
          No findings are linked to this ticket. Select findings on the Findings page and choose “Add to
          ticket…”.
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={820}>
          <Table striped highlightOnHover verticalSpacing={6} fz="sm">
            <TableHead
              columns={[
                { label: 'Severity', w: 100 },
                'Title',
                'Asset',
                'Location',
                { label: 'State', w: 130 },
                canChange && { hidden: 'Actions', w: 90 },
              ]}
            />
            <Table.Tbody>
              {ticket.Findings.map((finding) => (
                <Table.Tr key={finding.Id}>
                  <Table.Td>
                    <SeverityBadge severity={finding.Severity} />
                  </Table.Td>
                  <Table.Td style={{ overflowWrap: 'anywhere' }}>
                    <Anchor component={Link} to={`/findings/${finding.Id}`} size="sm">
                      {finding.Title}
                    </Anchor>
                  </Table.Td>
                  <Table.Td style={{ overflowWrap: 'anywhere' }}>
                    <Anchor component={Link} to={`/assets/${finding.AssetId}`} size="sm">
                      {finding.AssetName}
                    </Anchor>
                  </Table.Td>
                  <Table.Td style={{ overflowWrap: 'anywhere' }}>
                    <LocationCell location={finding.Location} />
                  </Table.Td>
                  <Table.Td>
                    <FindingStateBadge state={finding.State} />
                  </Table.Td>
                  {canChange && (
                    <Table.Td ta="right">
                      <Button
                        size="compact-sm"
                        variant="subtle"
                        color="red"
                        aria-label={`Remove ${finding.Title} from ticket`}
                        loading={unlink.isPending && unlink.variables?.[0] === finding.Id}
                        onClick={() =>
                          unlink.mutate([finding.Id], {
                            onSuccess: () =>
                              notifications.show({ color: 'green', message: `Removed “${finding.Title}”.` }),
                          })
                        }
                      >
                        Remove
                      </Button>
                    </Table.Td>
                  )}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Card>
  );
}
