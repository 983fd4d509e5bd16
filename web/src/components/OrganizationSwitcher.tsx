import { Button, Menu, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { lazy, Suspense, useState } from 'react';
import { useNavigate } from 'react-router';
import { errorMessage } from '../api/client';
import { useSwitchOrganization } from '../api/session';
import type { SecondStep, Session, SessionOrganization } from '../api/types';
import { IconBuilding, IconCheck, IconChevronDown } from '../icons';
import { roleLabel } from '../labels';

// Rarely needed, and a dialog the sign-in page does not use: loaded when an organisation asks.
const SwitchSecondStep = lazy(() => import('./SwitchSecondStep'));

/**
 * The current organisation in the header; a menu of the person's others when they have more than
 * one. Switching starts a new session there (its own CSRF token, their role there), forgets what
 * the old organisation's pages had loaded and goes to the overview. When the organisation asks for
 * a second step, it is taken here as at sign-in.
 */
export function OrganizationSwitcher({ session }: { session: Session }) {
  const navigate = useNavigate();
  const switchTo = useSwitchOrganization();
  // The second step an organisation asked for, and which organisation: a dialog while it is set.
  const [pending, setPending] = useState<{ step: SecondStep; target: SessionOrganization } | null>(null);
  const current = session.Organization;
  const others = session.Organizations.filter((o) => o.Id !== current.Id);
  // Single sign-on vouches for one organisation: such a session cannot move.
  const bound = session.SignedInWith === 'SingleSignOn';

  if (others.length === 0) {
    return (
      <Text size="sm" c="dimmed" visibleFrom="sm" truncate maw={240} title="Organisation">
        {current.Name}
      </Text>
    );
  }

  const arrived = (next: Session) => {
    setPending(null);
    // The page on screen remounts in the new organisation (AppLayout's key) until the overview,
    // rendered as a transition, replaces it: nothing of the old one shows meanwhile.
    navigate('/');
    notifications.show({
      color: 'green',
      message: `Now in ${next.Organization.Name}, as ${roleLabel(next.User.Role)}.`,
    });
  };

  const choose = (target: SessionOrganization) => {
    switchTo.mutate(target.Id, {
      onSuccess: (result) => {
        if (result.session) arrived(result.session);
        else setPending({ step: result.secondStep, target });
      },
      onError: (error) =>
        notifications.show({
          color: 'red',
          title: `Could not switch to ${target.Name}`,
          message: errorMessage(error),
          autoClose: 10_000,
        }),
    });
  };

  /** The second step given up (null) or expired (why): still in the current organisation. */
  const giveUp = (why: string | null) => {
    setPending(null);
    if (why)
      notifications.show({
        color: 'yellow',
        title: 'Still in the same organisation',
        message: `${why} Choose the organisation again to try once more.`,
        autoClose: 10_000,
      });
  };

  return (
    <>
      <Menu position="bottom-end" width={300} withArrow>
        <Menu.Target>
          <Button
            variant="subtle"
            color="gray"
            px="xs"
            aria-label={`Organisation: ${current.Name}`}
            leftSection={<IconBuilding size={18} />}
            rightSection={<IconChevronDown size={14} />}
            loading={switchTo.isPending}
            styles={{ label: { maxWidth: 220 } }}
          >
            <Text component="span" size="sm" truncate visibleFrom="sm">
              {current.Name}
            </Text>
          </Button>
        </Menu.Target>
        <Menu.Dropdown>
          <Menu.Label>Your organisations</Menu.Label>
          <Menu.Item
            leftSection={<IconCheck size={16} />}
            rightSection={<RoleText role={session.User.Role} />}
            aria-current="true"
            disabled
          >
            {current.Name}
          </Menu.Item>
          {others.map((organization) => (
            <Menu.Item
              key={organization.Id}
              leftSection={<span style={{ width: 16, display: 'inline-block' }} />}
              rightSection={<RoleText role={organization.Role} />}
              disabled={bound}
              onClick={() => choose(organization)}
            >
              {organization.Name}
            </Menu.Item>
          ))}
          {bound && (
            <Text size="xs" c="dimmed" px="sm" py={6} maw={300}>
              You signed in through single sign-on, which vouches for {current.Name} only. To work in another
              organisation, sign out and sign in to it.
            </Text>
          )}
        </Menu.Dropdown>
      </Menu>
      {pending && (
        <Suspense fallback={null}>
          <SwitchSecondStep
            step={pending.step}
            target={pending.target}
            onRestart={giveUp}
            onSignedIn={arrived}
          />
        </Suspense>
      )}
    </>
  );
}

function RoleText({ role }: { role: SessionOrganization['Role'] }) {
  return (
    <Text span size="xs" c="dimmed">
      {roleLabel(role)}
    </Text>
  );
}
