import { Stack, Tabs } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { PageHeader } from '../../components/PageHeader';
import { useUrlState } from '../../components/useUrlState';
import { DeliveriesTab } from './DeliveriesTab';
import { EndpointsTab } from './EndpointsTab';
import { RulesTab } from './RulesTab';

const TABS = ['rules', 'endpoints', 'deliveries'] as const;
type Tab = (typeof TABS)[number];

/** Rules, endpoints and the delivery log, one tab each; the tab and endpoint are kept in the address. */
export default function NotificationsPage() {
  useDocumentTitle('Notifications · Rampart');
  const [params, update] = useUrlState();
  const asked = params.get('tab');
  const tab: Tab = (TABS as readonly string[]).includes(asked ?? '') ? (asked as Tab) : 'rules';
  const showDeliveries = (endpointId: string) => update({ tab: 'deliveries', endpoint: endpointId });

  return (
    <Stack gap="lg">
      <PageHeader title="Notifications">
        Rules send Rampart’s events to webhooks, Slack, Microsoft Teams and email. Each delivery is retried
        until it succeeds and kept in its endpoint’s log.
      </PageHeader>
      <Tabs value={tab} onChange={(value) => update({ tab: value ?? undefined })} keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="rules">Rules</Tabs.Tab>
          <Tabs.Tab value="endpoints">Endpoints</Tabs.Tab>
          <Tabs.Tab value="deliveries">Deliveries</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="rules" pt="md">
          <RulesTab />
        </Tabs.Panel>
        <Tabs.Panel value="endpoints" pt="md">
          <EndpointsTab onShowDeliveries={showDeliveries} />
        </Tabs.Panel>
        <Tabs.Panel value="deliveries" pt="md">
          <DeliveriesTab
            endpointId={params.get('endpoint')}
            onEndpoint={(id) => update({ endpoint: id ?? undefined })}
          />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
