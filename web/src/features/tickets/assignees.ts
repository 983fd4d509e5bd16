import { useUserDirectory } from '../../api/users';

/** The people a ticket can go to: active users, by name. */
export function useAssigneeOptions(current?: string | null) {
  const users = useUserDirectory();
  return (users.data ?? [])
    .filter((user) => user.Active || user.Id === current)
    .map((user) => ({ value: user.Id, label: user.Active ? user.Name : `${user.Name} (deactivated)` }))
    .sort((a, b) => a.label.localeCompare(b.label));
}

/** A user's name by id, for assignees and authors. */
export function useUserName() {
  const users = useUserDirectory();
  return (id: string | null | undefined): string | undefined =>
    id ? (users.data?.find((user) => user.Id === id)?.Name ?? 'Unknown user') : undefined;
}
