import { localStorageColorSchemeManager, MantineProvider } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from 'react-router';
import { configureClient } from './api/client';
import { queryClient } from './api/queryClient';
import { csrfToken, sessionExpired } from './api/session';
import { router } from './routes';
import { theme } from './theme';

configureClient({ csrfToken, onUnauthorized: sessionExpired });

// "auto" follows the system until the user picks a theme in the header; the choice is kept here.
const colorSchemeManager = localStorageColorSchemeManager({ key: 'rampart-color-scheme' });

export function App() {
  return (
    <MantineProvider theme={theme} defaultColorScheme="auto" colorSchemeManager={colorSchemeManager}>
      <Notifications position="top-right" />
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>
  );
}
