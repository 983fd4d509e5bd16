import { ActionIcon, Alert, Badge, Button, Menu, Stack, Table, Text } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { useState } from 'react';
import { ApiError } from '../../api/client';
import { useInstallationOrganizations } from '../../api/installation';
import { useSignedInSession } from '../../api/session';
import type { InstallationOrganization } from '../../api/types';
import { DateTime } from '../../components/DateTime';
import { PageHeader } from '../../components/PageHeader';
import { TableSkeleton } from '../../components/PageSkeleton';
import { QueryError } from '../../components/QueryError';
import { TableHead } from '../../components/TableHead';
import { IconBuilding, IconDots, IconLock, IconPencil, IconPlus } from '../../icons';
import { counted, organizationStatusLabel } from '../../labels';
import { NewOrganizationModal } from './NewOrganizationModal';
import { type OrganizationAction, OrganizationActionModal } from './OrganizationActionModal';

/** The installation's organisations, run by installation Admins (docs/organisations.md). */
export default function OrganizationsPage() {
  useDocumentTitle('Organisations · Rampart');
  const session = useSignedInSession();
  const allowed = session.InstallationAdmin;
  const organizations = useInstallationOrganizations(allowed);
  const [creating, setCreating] = useState(false);
  // The organisation and action stay set while the dialog animates out; `acting` says whether it is open.
  const [action, setAction] = useState<OrganizationAction | null>(null);
  const [acting, setActing] = useState(false);

  // The server decides (403); the session tells beforehand, and a right taken away since shows the same.
  if (!allowed || (organizations.error instanceof ApiError && organizations.error.status === 403)) {
    return <OnlyInstallationAdmins />;
  }

  const act = (kind: OrganizationAction['kind'], organization: InstallationOrganization) => {
    setAction({ kind, organization });
    setActing(true);
  };
  const rows = organizations.data ?? [];

  return (
    <Stack gap="lg">
      <PageHeader
        title="Organisations"
        action={
          <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
            New organisation
          </Button>
        }
      >
        Every organisation of this Rampart installation. Each keeps its own assets, findings, users and API
        keys; a person may belong to several.
        {organizations.data && ` ${counted(rows.length, 'organisation')} in all.`}
      </PageHeader>

      {organizations.isPending ? (
        <TableSkeleton rows={3} />
      ) : organizations.isError && !organizations.data ? (
        <QueryError error={organizations.error} onRetry={() => organizations.refetch()} />
      ) : (
        <Table.ScrollContainer minWidth={640}>
          <Table striped highlightOnHover verticalSpacing="xs" fz="sm">
            <TableHead
              columns={[
                'Name',
                'Status',
                { label: 'Members', ta: 'right' },
                'Created',
                { hidden: 'Actions' },
              ]}
            />
            <Table.Tbody>
              {rows.map((organization) => (
                <Table.Tr key={organization.Id}>
                  <Table.Td style={{ overflowWrap: 'anywhere' }}>
                    {organization.Name}
                    {organization.Id === session.Organization.Id && (
                      <Text component="span" size="xs" c="dimmed" ml={6}>
                        (you are here)
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Badge color={organization.Active ? 'green' : 'gray'} variant="light">
                      {organizationStatusLabel(organization.Active)}
                    </Badge>
                  </Table.Td>
                  <Table.Td ta="right" style={{ fontVariantNumeric: 'tabular-nums' }}>
                    {organization.Members.toLocaleString()}
                  </Table.Td>
                  <Table.Td>
                    <DateTime value={organization.CreatedAt} />
                  </Table.Td>
                  <Table.Td ta="right">
                    <Menu position="bottom-end" withArrow>
                      <Menu.Target>
                        <ActionIcon
                          variant="subtle"
                          color="gray"
                          aria-label={`Actions for ${organization.Name}`}
                        >
                          <IconDots size={18} />
                        </ActionIcon>
                      </Menu.Target>
                      <Menu.Dropdown>
                        <Menu.Item
                          leftSection={<IconPencil size={16} />}
                          onClick={() => act('rename', organization)}
                        >
                          Rename
                        </Menu.Item>
                        <Menu.Item
                          leftSection={
                            organization.Active ? <IconLock size={16} /> : <IconBuilding size={16} />
                          }
                          color={organization.Active ? 'red' : undefined}
                          onClick={() => act(organization.Active ? 'deactivate' : 'reactivate', organization)}
                        >
                          {organization.Active ? 'Deactivate' : 'Reactivate'}
                        </Menu.Item>
                      </Menu.Dropdown>
                    </Menu>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}

      <NewOrganizationModal opened={creating} onClose={() => setCreating(false)} you={session.User.Email} />
      {action && (
        <OrganizationActionModal
          action={action}
          opened={acting}
          onClose={() => setActing(false)}
          current={action.organization.Id === session.Organization.Id}
        />
      )}
    </Stack>
  );
}

function OnlyInstallationAdmins() {
  return (
    <Stack gap="lg">
      <PageHeader title="Organisations">The organisations of this Rampart installation.</PageHeader>
      <Alert color="yellow" variant="light" icon={<IconLock />} title="Only installation Admins">
        Only installation Admins can see and change the organisations of this installation; an Admin of an
        organisation runs only their own. Ask whoever runs this Rampart installation if you need this, or use{' '}
        <code>rampart user installation-admin EMAIL</code> on its server.
      </Alert>
    </Stack>
  );
}
