import {
  Anchor,
  Badge,
  Button,
  Card,
  Code,
  Group,
  List,
  SimpleGrid,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { type ReactNode, useState } from 'react';
import type { CveIntel } from '../../api/intel';
import type { Vulnerability } from '../../api/types';

const SHOWN_REFERENCES = 8;

/** Links only to web addresses: a reference could be anything a scanner or feed wrote. */
function isWebAddress(value: string): boolean {
  return /^https?:\/\//i.test(value);
}

/** MITRE's page of a CWE ("CWE-22"); null for the NVD placeholders (NVD-CWE-Other, -noinfo). */
function cweUrl(cwe: string): string | null {
  const number = /^CWE-(\d+)$/i.exec(cwe)?.[1];
  return number ? `https://cwe.mitre.org/data/definitions/${number}.html` : null;
}

/** A link that leaves Rampart: a new tab, without giving the other site this page. */
function ExternalLink({ href, children }: { href: string; children: ReactNode }) {
  return (
    <Anchor href={href} target="_blank" rel="noopener noreferrer" size="sm">
      {children}
    </Anchor>
  );
}

/** What the vulnerability is and how to fix it; its weaknesses, products, advisories and references. */
export function DetailsCard({
  vulnerability: v,
  intel,
}: {
  vulnerability: Vulnerability;
  intel: CveIntel | null;
}) {
  const [allReferences, setAllReferences] = useState(false);
  const cwe = [...new Set([...v.Cwe, ...(intel?.Cwe ?? [])])];
  const references = [...new Set([...v.References, ...(intel?.References ?? [])])];
  const shown = allReferences ? references : references.slice(0, SHOWN_REFERENCES);
  // The feed's description says what the CVE is; the scanner's often only that it was found.
  const description = intel?.Description || v.Description;
  const scanners = intel?.Description && v.Description && v.Description !== intel.Description;

  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="details-title">
      <Title order={2} size="h4" id="details-title" mb="sm">
        Description and references
      </Title>
      <Stack gap="md">
        <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
          <div>
            <Title order={3} size="h5" mb={4}>
              Description
            </Title>
            <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
              {description || 'No description.'}
            </Text>
            {scanners && (
              <Text size="sm" c="dimmed" mt="xs" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
                The scanner’s words: {v.Description}
              </Text>
            )}
          </div>
          <div>
            <Title order={3} size="h5" mb={4}>
              Solution
            </Title>
            <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
              {v.Solution || 'No solution given.'}
            </Text>
          </div>
        </SimpleGrid>

        <Group gap="xl" align="flex-start">
          <div>
            <Title order={3} size="h5" mb={4}>
              Weakness (CWE)
            </Title>
            {cwe.length ? (
              <Group gap="xs">
                {cwe.map((id) => {
                  const href = cweUrl(id);
                  return href ? (
                    <ExternalLink key={id} href={href}>
                      {id}
                    </ExternalLink>
                  ) : (
                    <Text key={id} size="sm">
                      {id}
                    </Text>
                  );
                })}
              </Group>
            ) : (
              <Text size="sm" c="dimmed">
                None named.
              </Text>
            )}
          </div>
          {intel && intel.AffectedProducts.length > 0 && (
            <div style={{ minWidth: 0 }}>
              <Title order={3} size="h5" mb={4}>
                Affected products
              </Title>
              <Group gap={6}>
                {intel.AffectedProducts.map((product) => (
                  <Code key={product} style={{ overflowWrap: 'anywhere' }}>
                    {product}
                  </Code>
                ))}
              </Group>
            </div>
          )}
        </Group>

        {intel && intel.Advisories.length > 0 && (
          <div>
            <Title order={3} size="h5" mb={4}>
              Package advisories (OSV)
            </Title>
            <List size="sm" spacing={4}>
              {intel.Advisories.map((advisory) => (
                <List.Item key={advisory.Id} style={{ overflowWrap: 'anywhere' }}>
                  <ExternalLink href={`https://osv.dev/vulnerability/${encodeURIComponent(advisory.Id)}`}>
                    {advisory.Id}
                  </ExternalLink>
                  {advisory.Summary && ` — ${advisory.Summary}`}
                  {advisory.Packages.length > 0 && (
                    <Group gap={4} mt={2}>
                      {advisory.Packages.map((name) => (
                        <Badge key={name} variant="light" color="gray" size="sm">
                          {name}
                        </Badge>
                      ))}
                    </Group>
                  )}
                </List.Item>
              ))}
            </List>
          </div>
        )}

        <div>
          <Title order={3} size="h5" mb={4}>
            References
          </Title>
          {references.length ? (
            <Stack gap={4} align="flex-start">
              <List size="sm" spacing={2} style={{ maxWidth: '100%' }}>
                {shown.map((reference) => (
                  <List.Item key={reference} style={{ overflowWrap: 'anywhere' }}>
                    {isWebAddress(reference) ? (
                      <ExternalLink href={reference}>{reference}</ExternalLink>
                    ) : (
                      reference
                    )}
                  </List.Item>
                ))}
              </List>
              {references.length > SHOWN_REFERENCES && (
                <Button variant="subtle" size="compact-sm" onClick={() => setAllReferences((all) => !all)}>
                  {allReferences ? 'Show fewer' : `Show all ${references.length} references`}
                </Button>
              )}
            </Stack>
          ) : (
            <Text size="sm" c="dimmed">
              None given.
            </Text>
          )}
        </div>
      </Stack>
    </Card>
  );
}
