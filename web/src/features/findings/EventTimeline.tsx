import { Text, Timeline } from '@mantine/core';
import type { HistoryEvent } from '../../api/types';
import { useUserDirectory } from '../../api/users';
import { DateTime } from '../../components/DateTime';

const ACTORS: Record<string, string> = {
  user: 'a person',
  apikey: 'an API key',
  system: 'Rampart',
  cli: 'the command line',
};

/** What happened to a finding or ticket, oldest first. */
export function EventTimeline({ events }: { events: HistoryEvent[] }) {
  const users = useUserDirectory();
  const actor = (event: HistoryEvent) =>
    (event.ActorType === 'user' && users.data?.find((user) => user.Id === event.ActorId)?.Name) ||
    ACTORS[event.ActorType] ||
    event.ActorType;
  if (events.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        Nothing has happened yet.
      </Text>
    );
  }
  const ordered = [...events].sort((a, b) => a.At.localeCompare(b.At));
  return (
    <Timeline bulletSize={14} lineWidth={2} active={ordered.length - 1}>
      {ordered.map((event) => (
        <Timeline.Item
          key={event.Id}
          title={
            <Text size="sm" fw={600}>
              {event.Kind}
              {(event.FromState || event.ToState) && (
                <Text component="span" size="sm" fw={400}>
                  {' '}
                  {event.FromState ?? '—'} → {event.ToState ?? '—'}
                </Text>
              )}
            </Text>
          }
        >
          {event.Reason && (
            <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
              {event.Reason}
            </Text>
          )}
          <Text size="xs" c="dimmed">
            <DateTime value={event.At} /> · by {actor(event)}
          </Text>
        </Timeline.Item>
      ))}
    </Timeline>
  );
}
