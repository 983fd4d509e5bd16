import { lazy } from 'react';
import { createBrowserRouter } from 'react-router';
import { AppLayout } from './components/AppLayout';
import { RequireAuth } from './components/RequireAuth';
import { RequireRole } from './components/RequireRole';
import { RouteError } from './components/RouteError';
import { NotFoundPage } from './features/errors/NotFoundPage';
import { SignInPage } from './features/signin/SignInPage';

// Sign-in and the shell are in the first download; every page behind them loads on demand.
const OverviewPage = lazy(() => import('./features/overview/OverviewPage'));
const ProfilePage = lazy(() => import('./features/profile/ProfilePage'));
const UsersPage = lazy(() => import('./features/users/UsersPage'));
const FindingsPage = lazy(() => import('./features/findings/FindingsPage'));
const FindingDetailPage = lazy(() => import('./features/findings/FindingDetailPage'));
const TopRisksPage = lazy(() => import('./features/risks/TopRisksPage'));
const VulnerabilityPage = lazy(() => import('./features/vulnerabilities/VulnerabilityPage'));
const AssetsPage = lazy(() => import('./features/assets/AssetsPage'));
const AssetDetailPage = lazy(() => import('./features/assets/AssetDetailPage'));
const TicketsPage = lazy(() => import('./features/tickets/TicketsPage'));
const TicketDetailPage = lazy(() => import('./features/tickets/TicketDetailPage'));
const ImportsPage = lazy(() => import('./features/imports/ImportsPage'));
const ImportDetailPage = lazy(() => import('./features/imports/ImportDetailPage'));
const SettingsPage = lazy(() => import('./features/settings/SettingsPage'));
const FeedStatusPage = lazy(() => import('./features/feeds/FeedStatusPage'));
const ScanNodesPage = lazy(() => import('./features/scan-nodes/ScanNodesPage'));
// One list page and one scan page serve every scan kind, told which by the route.
const ScansPage = lazy(() => import('./features/scans/ScansPage'));
const ScanPage = lazy(() => import('./features/scans/ScanPage'));
const ScanGroupsPage = lazy(() => import('./features/scan-groups/ScanGroupsPage'));
const ScanGroupPage = lazy(() => import('./features/scan-groups/ScanGroupPage'));
const NotificationsPage = lazy(() => import('./features/notifications/NotificationsPage'));
const ReportsPage = lazy(() => import('./features/reports/ReportsPage'));
const AuditLogPage = lazy(() => import('./features/audit-log/AuditLogPage'));
const OrganizationsPage = lazy(() => import('./features/installation/OrganizationsPage'));

export const router = createBrowserRouter([
  { path: '/sign-in', element: <SignInPage />, errorElement: <RouteError /> },
  {
    element: (
      <RequireAuth>
        <AppLayout />
      </RequireAuth>
    ),
    errorElement: <RouteError />,
    children: [
      {
        // A page that fails to render shows its error inside the shell, navigation still usable.
        errorElement: <RouteError />,
        children: [
          { index: true, element: <OverviewPage /> },
          { path: 'findings', element: <FindingsPage /> },
          { path: 'findings/:id', element: <FindingDetailPage /> },
          { path: 'top-risks', element: <TopRisksPage /> },
          { path: 'vulnerabilities/:id', element: <VulnerabilityPage /> },
          { path: 'assets', element: <AssetsPage /> },
          { path: 'assets/:id', element: <AssetDetailPage /> },
          { path: 'tickets', element: <TicketsPage /> },
          { path: 'tickets/:id', element: <TicketDetailPage /> },
          { path: 'imports', element: <ImportsPage /> },
          { path: 'imports/:id', element: <ImportDetailPage /> },
          { path: 'discovery', element: <ScansPage kind="discovery" /> },
          { path: 'discovery/:id', element: <ScanPage kind="discovery" /> },
          { path: 'system-scans', element: <ScansPage kind="system" /> },
          { path: 'system-scans/:id', element: <ScanPage kind="system" /> },
          { path: 'web-scans', element: <ScansPage kind="web" /> },
          { path: 'web-scans/:id', element: <ScanPage kind="web" /> },
          { path: 'scan-groups', element: <ScanGroupsPage /> },
          { path: 'scan-groups/:id', element: <ScanGroupPage /> },
          { path: 'reports', element: <ReportsPage /> },
          { path: 'settings', element: <SettingsPage /> },
          { path: 'profile', element: <ProfilePage /> },
          {
            path: 'users',
            element: (
              <RequireRole minRole="Admin">
                <UsersPage />
              </RequireRole>
            ),
          },
          {
            path: 'feeds',
            element: (
              <RequireRole minRole="Admin">
                <FeedStatusPage />
              </RequireRole>
            ),
          },
          {
            path: 'scan-nodes',
            element: (
              <RequireRole minRole="Admin">
                <ScanNodesPage />
              </RequireRole>
            ),
          },
          {
            path: 'notifications',
            element: (
              <RequireRole minRole="Admin">
                <NotificationsPage />
              </RequireRole>
            ),
          },
          {
            path: 'audit-log',
            element: (
              <RequireRole minRole="Admin">
                <AuditLogPage />
              </RequireRole>
            ),
          },
          // INSTALLATION_ORGANIZATIONS (paths.ts), written out as every path here for the test that
          // keeps src/http/web-app.ts's APP_ROUTES in step. Installation Admins only, whatever their
          // role here: the page itself tells anyone else.
          { path: 'installation/organizations', element: <OrganizationsPage /> },
          { path: '*', element: <NotFoundPage /> },
        ],
      },
    ],
  },
]);
