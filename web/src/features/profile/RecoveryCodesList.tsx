import { Alert, Box, Button, Code, CopyButton, Group, SimpleGrid, Stack, Text } from '@mantine/core';
import { IconAlertTriangle, IconCheck, IconCopy, IconDownload } from '../../icons';

/** Recovery codes, shown once: to copy or download and keep somewhere safe. */
export function RecoveryCodesList({ codes }: { codes: readonly string[] }) {
  const text = `${codes.join('\n')}\n`;
  const download = () => {
    const url = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = 'rampart-recovery-codes.txt';
    link.click();
    URL.revokeObjectURL(url);
  };
  return (
    <Stack gap="sm">
      <Alert color="yellow" variant="light" icon={<IconAlertTriangle />}>
        Save these recovery codes now: they are shown only once. Each one signs you in once if you lose your
        authenticator app.
      </Alert>
      <SimpleGrid cols={2} spacing="xs" component="ul" aria-label="Recovery codes" m={0} p={0}>
        {codes.map((code) => (
          <Box key={code} component="li" style={{ listStyle: 'none' }}>
            <Code className="secret-value" fz="sm" p={6} style={{ display: 'block' }}>
              {code}
            </Code>
          </Box>
        ))}
      </SimpleGrid>
      <Group gap="sm">
        <CopyButton value={text} timeout={2000}>
          {({ copied, copy }) => (
            <Button
              variant="default"
              leftSection={copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
              onClick={copy}
            >
              {copied ? 'Copied' : 'Copy codes'}
            </Button>
          )}
        </CopyButton>
        <Button variant="default" leftSection={<IconDownload size={16} />} onClick={download}>
          Download
        </Button>
      </Group>
      <Text size="xs" c="dimmed">
        New codes can be made in My profile; making them ends the old ones.
      </Text>
    </Stack>
  );
}
