import { Anchor, AppShell, Burger, Group, NavLink } from '@mantine/core';
import { useDisclosure, useMediaQuery } from '@mantine/hooks';
import { Suspense, useEffect } from 'react';
import { Link, Outlet, ScrollRestoration, useLocation } from 'react-router';
import { useSignedInSession } from '../api/session';
import {
  IconBell,
  IconBug,
  IconBuildings,
  IconClipboardList,
  IconDatabase,
  IconDevices,
  IconFileImport,
  IconLayoutDashboard,
  IconRadar,
  IconReportAnalytics,
  IconServer,
  IconServerBolt,
  IconSettings,
  IconStack,
  IconTarget,
  IconTicket,
  IconUsers,
  IconWorldSearch,
} from '../icons';
import { INSTALLATION_ORGANIZATIONS } from '../paths';
import { ColorSchemeToggle } from './ColorSchemeToggle';
import { Logo } from './Logo';
import { OrganizationSwitcher } from './OrganizationSwitcher';
import { PageSkeleton } from './PageSkeleton';
import { UserMenu } from './UserMenu';

export function AppLayout() {
  const session = useSignedInSession();
  const { pathname } = useLocation();
  const [navOpened, nav] = useDisclosure(false);
  // Below the `sm` breakpoint (48em) the navigation slides away; it must then leave the tab order too.
  const narrow = useMediaQuery('(max-width: 47.99em)');

  // On narrow screens the navigation covers the page: close it once the user has picked a page.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on navigation on purpose
  useEffect(() => nav.close(), [pathname]);

  const links = [
    { to: '/', label: 'Overview', icon: IconLayoutDashboard, active: pathname === '/' },
    { to: '/top-risks', label: 'Top risks', icon: IconTarget, active: under(pathname, '/top-risks') },
    { to: '/findings', label: 'Findings', icon: IconBug, active: under(pathname, '/findings') },
    { to: '/assets', label: 'Assets', icon: IconDevices, active: under(pathname, '/assets') },
    { to: '/tickets', label: 'Tickets', icon: IconTicket, active: under(pathname, '/tickets') },
    { to: '/imports', label: 'Imports', icon: IconFileImport, active: under(pathname, '/imports') },
    { to: '/reports', label: 'Reports', icon: IconReportAnalytics, active: under(pathname, '/reports') },
    { to: '/discovery', label: 'Discovery scans', icon: IconRadar, active: under(pathname, '/discovery') },
    {
      to: '/system-scans',
      label: 'System scans',
      icon: IconServerBolt,
      active: under(pathname, '/system-scans'),
    },
    { to: '/web-scans', label: 'Web scans', icon: IconWorldSearch, active: under(pathname, '/web-scans') },
    { to: '/scan-groups', label: 'Scan groups', icon: IconStack, active: under(pathname, '/scan-groups') },
    ...(session.User.Role === 'Admin'
      ? [
          { to: '/users', label: 'Users', icon: IconUsers, active: under(pathname, '/users') },
          { to: '/feeds', label: 'Feed status', icon: IconDatabase, active: under(pathname, '/feeds') },
          {
            to: '/scan-nodes',
            label: 'Scan nodes',
            icon: IconServer,
            active: under(pathname, '/scan-nodes'),
          },
          {
            to: '/notifications',
            label: 'Notifications',
            icon: IconBell,
            active: under(pathname, '/notifications'),
          },
          {
            to: '/audit-log',
            label: 'Audit log',
            icon: IconClipboardList,
            active: under(pathname, '/audit-log'),
          },
        ]
      : []),
    { to: '/settings', label: 'Settings', icon: IconSettings, active: under(pathname, '/settings') },
    // The installation's organisations: installation Admins, whatever their role here.
    ...(session.InstallationAdmin
      ? [
          {
            to: INSTALLATION_ORGANIZATIONS,
            label: 'Organisations',
            icon: IconBuildings,
            active: under(pathname, INSTALLATION_ORGANIZATIONS),
          },
        ]
      : []),
  ];

  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: !navOpened } }}
      padding="lg"
    >
      <button type="button" className="skip-link" onClick={() => document.getElementById('main')?.focus()}>
        Skip to main content
      </button>
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger
              opened={navOpened}
              onClick={nav.toggle}
              hiddenFrom="sm"
              size="sm"
              aria-label={navOpened ? 'Close navigation' : 'Open navigation'}
              aria-expanded={navOpened}
              aria-controls="main-navigation"
            />
            <Anchor component={Link} to="/" underline="never" c="inherit" aria-label="Rampart home">
              <Logo />
            </Anchor>
          </Group>
          <Group gap="sm" wrap="nowrap">
            <OrganizationSwitcher session={session} />
            <ColorSchemeToggle />
            <UserMenu session={session} />
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" id="main-navigation" aria-label="Main navigation" inert={narrow && !navOpened}>
        {links.map(({ to, label, icon: Icon, active }) => (
          <NavLink
            key={to}
            component={Link}
            to={to}
            label={label}
            leftSection={<Icon size={18} />}
            active={active}
            aria-current={active ? 'page' : undefined}
            onClick={nav.close}
            variant="light"
            style={{ borderRadius: 'var(--mantine-radius-sm)' }}
          />
        ))}
      </AppShell.Navbar>
      <AppShell.Main id="main" tabIndex={-1} style={{ outline: 'none' }}>
        {/* A page of another organisation starts afresh: nothing it held stays on screen. */}
        <div style={{ maxWidth: 1200 }} key={session.Organization.Id}>
          <Suspense fallback={<PageSkeleton />}>
            <Outlet />
          </Suspense>
        </div>
      </AppShell.Main>
      <ScrollRestoration />
    </AppShell>
  );
}

/** Whether `pathname` is the section `base` or a page inside it (not merely sharing a prefix). */
function under(pathname: string, base: string): boolean {
  return pathname === base || pathname.startsWith(`${base}/`);
}
