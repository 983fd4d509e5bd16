import { Card, Code, ScrollArea, Text, Title } from '@mantine/core';

/** What the scanner reported as proof, scrollable when long. */
export function EvidenceCard({ evidence }: { evidence: string | null }) {
  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="evidence-title">
      <Title order={2} size="h4" id="evidence-title" mb="sm">
        Evidence
      </Title>
      {evidence ? (
        <ScrollArea.Autosize mah={360} type="auto" tabIndex={0} aria-label="Evidence" role="region">
          <Code block style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
            {evidence}
          </Code>
        </ScrollArea.Autosize>
      ) : (
        <Text size="sm" c="dimmed">
          The scanner reported no evidence.
        </Text>
      )}
    </Card>
  );
}
