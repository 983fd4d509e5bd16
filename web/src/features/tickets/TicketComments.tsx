import { Button, Card, Group, Paper, Stack, Text, Textarea, Title } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { useAddComment } from '../../api/tickets';
import type { TicketDetail } from '../../api/types';
import { DateTime } from '../../components/DateTime';
import { ErrorAlert } from '../../components/QueryError';
import { useUserName } from './assignees';

/** The ticket's discussion, oldest first, and (Analysts) a comment box. */
export function TicketComments({ ticket, canChange }: { ticket: TicketDetail; canChange: boolean }) {
  const add = useAddComment(ticket.Id);
  const userName = useUserName();
  const [body, setBody] = useState('');
  const [error, setError] = useState<string>();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const text = body.trim();
    setError(text ? undefined : 'Write a comment first.');
    if (!text) return;
    add.mutate({ Body: text }, { onSuccess: () => setBody('') });
  };

  const comments = [...ticket.Comments].sort((a, b) => a.CreatedAt.localeCompare(b.CreatedAt));

  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="ticket-comments-title">
      <Title order={2} size="h4" id="ticket-comments-title" mb="md">
        Discussion
      </Title>
      <Stack gap="sm">
        {comments.length === 0 && (
          <Text size="sm" c="dimmed">
            No comments yet.
          </Text>
        )}
        {comments.map((comment) => (
          <Paper key={comment.Id} withBorder p="sm" radius="sm" component="article">
            <Text size="xs" c="dimmed" mb={4}>
              {userName(comment.AuthorId) ?? 'Rampart'} · <DateTime value={comment.CreatedAt} />
            </Text>
            <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
              {comment.Body}
            </Text>
          </Paper>
        ))}
        {canChange && (
          <form onSubmit={submit} noValidate>
            <Stack gap="xs">
              <ErrorAlert error={add.error} />
              <Textarea
                label="Comment"
                autosize
                minRows={2}
                maxRows={10}
                maxLength={20000}
                value={body}
                onChange={(e) => setBody(e.currentTarget.value)}
                error={error}
              />
              <Group>
                <Button type="submit" loading={add.isPending}>
                  Add comment
                </Button>
              </Group>
            </Stack>
          </form>
        )}
      </Stack>
    </Card>
  );
}
