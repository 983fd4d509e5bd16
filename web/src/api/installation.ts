import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client';
import { sessionKey } from './session';
import type { CreatedOrganization, InstallationOrganization, RequestOf } from './types';

// The installation's organisations, for installation Admins (docs/organisations.md).
const organizationsKey = ['installation', 'organizations'] as const;

export function useInstallationOrganizations(enabled: boolean) {
  return useQuery({
    queryKey: organizationsKey,
    queryFn: ({ signal }) =>
      api<{ Items: InstallationOrganization[] }>('/installation/organizations', { signal }),
    select: (list) => list.Items,
    enabled,
  });
}

// The session lists the person's organisations by name: a new, renamed or deactivated one changes it.
async function refresh(client: ReturnType<typeof useQueryClient>): Promise<void> {
  await Promise.all([
    client.invalidateQueries({ queryKey: organizationsKey }),
    client.invalidateQueries({ queryKey: sessionKey }),
  ]);
}

export function useCreateOrganization() {
  const client = useQueryClient();
  return useMutation({
    // The answer may hold the new Admin's password: keep it no longer than the dialog that shows it.
    gcTime: 0,
    mutationFn: (body: RequestOf<'createInstallationOrganization'>) =>
      api<CreatedOrganization>('/installation/organizations', { method: 'POST', body }),
    onSuccess: () => refresh(client),
  });
}

export function useUpdateOrganization() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, ...body }: RequestOf<'updateInstallationOrganization'> & { id: string }) =>
      api<InstallationOrganization>(`/installation/organizations/${encodeURIComponent(id)}`, {
        method: 'PATCH',
        body,
      }),
    onSuccess: () => refresh(client),
  });
}
