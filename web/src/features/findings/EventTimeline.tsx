import { Text, Timeline } from '@mantine/core';
import type { HistoryEvent } from '../../api/types';
import { useUserDirectory } from '../../api/users';
import { DateTime } from '../../components/DateTime';
import { ACTOR_LABELS, eventSentence } from '../../labels';

/** What happened to a finding or ticket, oldest first, each event as a sentence. */
export function EventTimeline({
  events,
  subject,
}: {
  events: HistoryEvent[];
  subject: 'finding' | 'ticket';
}) {
  const users = useUserDirectory();
  const actor = (event: HistoryEvent) =>
    (event.ActorType === 'user' && users.data?.find((user) => user.Id === event.ActorId)?.Name) ||
    ACTOR_LABELS[event.ActorType] ||
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
              {eventSentence(event, subject)}
            </Text>
          }
        >
          {'Reason' in event && event.Reason && (
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
