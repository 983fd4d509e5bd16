import { useQuery } from '@tanstack/react-query';
import { api } from './client';
import type { ServiceStatus } from './types';

export function useStatus() {
  return useQuery({
    queryKey: ['status'],
    queryFn: ({ signal }) => api<ServiceStatus>('/status', { signal }),
  });
}

/** Where integrations reach this service; the page's own origin when the server does not say. */
export function baseUrlOf(status: ServiceStatus | undefined): string {
  return (status?.BaseUrl || window.location.origin).replace(/\/+$/, '');
}
