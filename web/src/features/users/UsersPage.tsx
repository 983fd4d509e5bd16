import { ActionIcon, Badge, Button, Menu, Stack, Table, Text } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { useState } from 'react';
import { useMfaUsers } from '../../api/mfa';
import { useSignedInSession } from '../../api/session';
import type { User } from '../../api/types';
import { useUsers } from '../../api/users';
import { DateTime } from '../../components/DateTime';
import { LoadMore } from '../../components/LoadMore';
import { PageHeader } from '../../components/PageHeader';
import { TableSkeleton } from '../../components/PageSkeleton';
import { QueryError } from '../../components/QueryError';
import { TableHead } from '../../components/TableHead';
import {
  IconDots,
  IconPassword,
  IconPlus,
  IconShieldOff,
  IconUserCheck,
  IconUserCog,
  IconUserOff,
} from '../../icons';
import { roleLabel } from '../../labels';
import { AddUserModal } from './AddUserModal';
import { type UserAction, UserActionModal } from './UserActionModal';

export default function UsersPage() {
  useDocumentTitle('Users · Rampart');
  const me = useSignedInSession().User;
  const users = useUsers();
  // Who has two-step verification on (the page is an Admin's, as the list is).
  const mfa = useMfaUsers(true);
  const [adding, setAdding] = useState(false);
  // The user and action stay set while the dialog animates out; `acting` says whether it is open.
  const [action, setAction] = useState<UserAction | null>(null);
  const [acting, setActing] = useState(false);

  const act = (kind: UserAction['kind'], user: User) => {
    setAction({ kind, user });
    setActing(true);
  };

  const rows = users.data?.pages.flatMap((page) => page.Items) ?? [];
  const total = users.data?.pages.at(-1)?.TotalCount;

  return (
    <Stack gap="lg">
      <PageHeader
        title="Users"
        action={
          <Button leftSection={<IconPlus size={16} />} onClick={() => setAdding(true)}>
            Add user
          </Button>
        }
      >
        The people who can sign in to your organisation, and their roles.
        {total !== undefined && ` ${total} ${total === 1 ? 'user' : 'users'} in all.`}
      </PageHeader>

      {users.isPending ? (
        <TableSkeleton rows={5} />
      ) : users.isError && !users.data ? (
        <QueryError error={users.error} onRetry={() => users.refetch()} />
      ) : (
        <>
          <Table.ScrollContainer minWidth={760}>
            <Table striped highlightOnHover verticalSpacing="xs" fz="sm">
              <TableHead
                columns={['Name', 'Email', 'Role', 'Status', 'Two-step', 'Created', { hidden: 'Actions' }]}
              />
              <Table.Tbody>
                {rows.map((user) => (
                  <Table.Tr key={user.Id}>
                    <Table.Td>
                      {user.Name}
                      {user.Id === me.Id && (
                        <Text component="span" size="xs" c="dimmed" ml={6}>
                          (you)
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td style={{ overflowWrap: 'anywhere' }}>{user.Email}</Table.Td>
                    <Table.Td>{roleLabel(user.Role)}</Table.Td>
                    <Table.Td>
                      <Badge color={user.Active ? 'green' : 'gray'} variant="light">
                        {user.Active ? 'Active' : 'Deactivated'}
                      </Badge>
                    </Table.Td>
                    <Table.Td>
                      {mfa.data?.has(user.Id) ? (
                        <Badge color="green" variant="light">
                          On
                        </Badge>
                      ) : (
                        <Text size="sm" c="dimmed">
                          {mfa.data ? 'Off' : '—'}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>
                      <DateTime value={user.CreatedAt} />
                    </Table.Td>
                    <Table.Td ta="right">
                      <Menu position="bottom-end" withArrow>
                        <Menu.Target>
                          <ActionIcon variant="subtle" color="gray" aria-label={`Actions for ${user.Email}`}>
                            <IconDots size={18} />
                          </ActionIcon>
                        </Menu.Target>
                        <Menu.Dropdown>
                          <Menu.Item
                            leftSection={<IconUserCog size={16} />}
                            onClick={() => act('role', user)}
                          >
                            Change role
                          </Menu.Item>
                          <Menu.Item
                            leftSection={
                              user.Active ? <IconUserOff size={16} /> : <IconUserCheck size={16} />
                            }
                            color={user.Active ? 'red' : undefined}
                            onClick={() => act(user.Active ? 'deactivate' : 'reactivate', user)}
                          >
                            {user.Active ? 'Deactivate' : 'Reactivate'}
                          </Menu.Item>
                          <Menu.Item
                            leftSection={<IconPassword size={16} />}
                            onClick={() => act('reset', user)}
                          >
                            Reset password
                          </Menu.Item>
                          {mfa.data?.has(user.Id) && (
                            <Menu.Item
                              leftSection={<IconShieldOff size={16} />}
                              color="red"
                              onClick={() => act('mfa', user)}
                            >
                              Reset two-step verification
                            </Menu.Item>
                          )}
                        </Menu.Dropdown>
                      </Menu>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>

          <LoadMore query={users} shown={rows.length} total={total} what="users" />
        </>
      )}

      <AddUserModal opened={adding} onClose={() => setAdding(false)} />
      {action && <UserActionModal action={action} opened={acting} onClose={() => setActing(false)} />}
    </Stack>
  );
}
