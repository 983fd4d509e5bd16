import { Button, Menu, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { Link } from 'react-router';
import { errorMessage } from '../api/client';
import { useSignOut } from '../api/session';
import type { Session } from '../api/types';
import { IconChevronDown, IconLogout, IconUserCircle } from '../icons';
import { roleLabel } from '../labels';

export function UserMenu({ session }: { session: Session }) {
  const signOut = useSignOut();
  return (
    <Menu position="bottom-end" width={260} withArrow>
      <Menu.Target>
        <Button
          variant="subtle"
          color="gray"
          aria-label="User menu"
          leftSection={<IconUserCircle size={20} />}
          rightSection={<IconChevronDown size={14} />}
          px="xs"
          styles={{ label: { maxWidth: 180 } }}
        >
          <Text component="span" size="sm" fw={500} truncate>
            {session.User.Name}
          </Text>
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>
          {session.User.Email}
          <br />
          {roleLabel(session.User.Role)} · {session.Organization.Name}
        </Menu.Label>
        <Menu.Item component={Link} to="/profile" leftSection={<IconUserCircle size={16} />}>
          My profile
        </Menu.Item>
        <Menu.Divider />
        <Menu.Item
          leftSection={<IconLogout size={16} />}
          onClick={() =>
            signOut.mutate(undefined, {
              onError: (error) =>
                notifications.show({
                  color: 'red',
                  title: 'Could not sign out',
                  message: errorMessage(error),
                }),
            })
          }
        >
          Sign out
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
