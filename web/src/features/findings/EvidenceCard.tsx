import { Card, Code, ScrollArea, Text, Title } from '@mantine/core';

/** What the scanner reported as proof, scrollable when long. */
export function EvidenceCard({ evidence }: { evidence: string | null }) {
  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="evidence-title">
      <Title order={2} size="h4" id="evidence-title" mb="sm">
        Evidence
      </Title>
      <EvidenceText evidence={evidence} none="The scanner reported no evidence." />
    </Card>
  );
}

/** The evidence, scrollable when long, or what to say when there is none. */
export function EvidenceText({ evidence, none }: { evidence: string | null; none: string }) {
  if (!evidence)
    return (
      <Text size="sm" c="dimmed">
        {none}
      </Text>
    );
  return (
    <ScrollArea.Autosize mah={360} type="auto" tabIndex={0} aria-label="Evidence" role="region">
      <Code block style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
        {evidence}
      </Code>
    </ScrollArea.Autosize>
  );
}
