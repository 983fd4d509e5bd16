import { Stack, Tabs, Text, Title } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { useSignedInSession } from '../../api/session';
import { hasRole } from '../../api/types';
import { useUrlState } from '../../components/useUrlState';
import { NewReportCard } from './NewReportCard';
import { ReportHistory } from './ReportHistory';
import { ScheduledReports } from './ScheduledReports';

export default function ReportsPage() {
  useDocumentTitle('Reports · Rampart');
  const canMake = hasRole(useSignedInSession().User.Role, 'Analyst');
  const [params, update] = useUrlState();
  const tab = params.get('tab') ?? 'history';
  const setTab = (next: string) => update({ tab: next === 'history' ? undefined : next });
  return (
    <Stack gap="lg">
      <div>
        <Title order={1}>Reports</Title>
        <Text size="sm" c="dimmed">
          Executive summaries and technical reports as PDF, HTML or CSV, made now or on a schedule.
        </Text>
      </div>
      <Tabs value={tab} onChange={(v) => setTab(v ?? 'history')} keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="history">History</Tabs.Tab>
          <Tabs.Tab value="scheduled">Scheduled</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="history" pt="md">
          <Stack gap="lg">
            {canMake && <NewReportCard />}
            <Stack gap="sm" component="section" aria-labelledby="report-history-title">
              <Title order={2} size="h4" id="report-history-title">
                History
              </Title>
              <ReportHistory canDelete={canMake} />
            </Stack>
          </Stack>
        </Tabs.Panel>
        <Tabs.Panel value="scheduled" pt="md">
          <ScheduledReports canEdit={canMake} />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
