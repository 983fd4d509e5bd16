import { Anchor, Button, Group, List, Modal, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { scanPath, type VerifyResult } from '../../api/verify';
import { plural } from '../../labels';

/**
 * What a Verify did: the runs it started (each scans again only the ports or URLs of its findings)
 * and the findings it could not verify, each with the server's reason.
 */
export function VerifyResultModal({
  result,
  onClose,
  titles,
}: {
  result: VerifyResult | null;
  onClose: () => void;
  /** Finding titles by id, where the page knows them; else a finding is named by its id. */
  titles?: ReadonlyMap<string, string>;
}) {
  return (
    <Modal opened={result !== null} onClose={onClose} title="Verify" size="lg">
      {result && (
        <Stack gap="md" data-testid="verify-result">
          <section aria-labelledby="verify-started">
            <Title order={3} size="h5" id="verify-started" mb={4}>
              {result.Runs.length === 0 ? 'No run started' : `Started ${plural(result.Runs.length, 'run')}`}
            </Title>
            {result.Runs.length > 0 && (
              <List size="sm" spacing={4}>
                {result.Runs.map((run) => (
                  <List.Item key={run.RunId}>
                    {run.Kind === 'Web' ? 'Web' : 'System'} scan, {plural(run.FindingIds.length, 'finding')}{' '}
                    <Anchor component={Link} to={scanPath(run)} size="sm" onClick={onClose}>
                      Open the scan
                    </Anchor>
                  </List.Item>
                ))}
              </List>
            )}
          </section>
          {result.Skipped.length > 0 && (
            <section aria-labelledby="verify-skipped">
              <Title order={3} size="h5" id="verify-skipped" mb={4}>
                Not verified: {plural(result.Skipped.length, 'finding')}
              </Title>
              <List size="sm" spacing={4}>
                {result.Skipped.map((skip) => (
                  <List.Item key={skip.FindingId}>
                    <Anchor
                      component={Link}
                      to={`/findings/${encodeURIComponent(skip.FindingId)}`}
                      size="sm"
                      onClick={onClose}
                    >
                      {titles?.get(skip.FindingId) ?? `Finding ${skip.FindingId}`}
                    </Anchor>
                    <Text component="span" size="sm" c="dimmed">
                      {' '}
                      — {skip.Reason}
                    </Text>
                  </List.Item>
                ))}
              </List>
            </section>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose} data-autofocus>
              Close
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
