import { Stack, Text, Title } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { useSignedInSession } from '../../api/session';
import { hasRole } from '../../api/types';
import { ImportHistory } from './ImportHistory';
import { UploadCard } from './UploadCard';

export default function ImportsPage() {
  useDocumentTitle('Imports · Rampart');
  const canImport = hasRole(useSignedInSession().User.Role, 'Analyst');
  return (
    <Stack gap="lg">
      <div>
        <Title order={1}>Imports</Title>
        <Text size="sm" c="dimmed">
          Scanner reports brought into Rampart, and what each one found, fixed and reopened.
        </Text>
      </div>
      {canImport && <UploadCard />}
      <Stack gap="sm" component="section" aria-labelledby="history-title">
        <Title order={2} size="h4" id="history-title">
          History
        </Title>
        <ImportHistory canImport={canImport} />
      </Stack>
    </Stack>
  );
}
