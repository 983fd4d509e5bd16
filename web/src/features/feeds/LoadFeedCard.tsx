import { Alert, Button, Card, Divider, Group, Progress, Select, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useRef, useState } from 'react';
import { ApiError, errorMessage } from '../../api/client';
import {
  FEED_NAMES,
  FEEDS,
  type FeedName,
  type IntelLoad,
  intelKey,
  uploadFeed,
  useIntelLoad,
} from '../../api/intel';
import { IconAlertCircle } from '../../icons';
import { ImportStateBadge } from '../imports/ImportStateBadge';
import { ReportDropZone } from '../imports/ReportDropZone';
import { LoadResult } from './LoadResult';

const DETECT = 'detect';

/** Choose a feed file, send it with a progress bar, then follow its load to the end. */
export function LoadFeedCard() {
  const client = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [feed, setFeed] = useState(DETECT);
  const [progress, setProgress] = useState(0);
  const [currentId, setCurrentId] = useState<string | null>(null);
  const abort = useRef<AbortController | null>(null);

  const upload = useMutation({
    mutationFn: ({ file: chosen, feed: named }: { file: File; feed?: FeedName }) => {
      abort.current = new AbortController();
      return uploadFeed(chosen, { feed: named, signal: abort.current.signal }, setProgress);
    },
    onSuccess: (load: IntelLoad) => {
      client.setQueryData([...intelKey, 'load', load.Id], load);
      void client.invalidateQueries({ queryKey: [...intelKey, 'feeds'] });
      void client.invalidateQueries({ queryKey: [...intelKey, 'loads'] });
      setCurrentId(load.Id);
      setFile(null);
      setFeed(DETECT);
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!file) return;
    setCurrentId(null);
    upload.mutate({ file, feed: feed === DETECT ? undefined : (feed as FeedName) });
  };

  const cancelled = upload.error instanceof DOMException && upload.error.name === 'AbortError';
  const percent = Math.min(100, Math.round(progress * 100));

  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="load-title">
      <Title order={2} size="h4" id="load-title">
        Load a feed file
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        Records already stored as given are left alone and an older copy never replaces a newer one, so
        loading a file twice changes nothing. Every organisation’s findings of the CVEs that changed are
        re-scored.
      </Text>
      <form onSubmit={submit} noValidate>
        <Stack gap="md">
          <ReportDropZone
            file={file}
            onFile={(chosen) => {
              setFile(chosen);
              upload.reset();
            }}
            disabled={upload.isPending}
            noun="feed file"
            prompt="Drag a feed file here"
            inputLabel="Feed file"
            hint="NVD CVE API 2.0 JSON, CVE JSON 5, the CISA KEV catalogue, EPSS CSV or OSV advisories; gzip is fine."
          />
          <Group align="flex-end" justify="space-between" gap="sm">
            <Select
              label="Feed"
              description="Rampart tells the feed from the content unless you choose one."
              data={[
                { value: DETECT, label: 'Detect automatically' },
                ...FEED_NAMES.map((name) => ({ value: name, label: `${FEEDS[name].label} (${name})` })),
              ]}
              value={feed}
              onChange={(value) => setFeed(value ?? DETECT)}
              allowDeselect={false}
              disabled={upload.isPending}
              style={{ flex: '1 1 260px', maxWidth: 420 }}
            />
            <Group gap="sm">
              {upload.isPending && (
                <Button variant="default" onClick={() => abort.current?.abort()}>
                  Cancel upload
                </Button>
              )}
              <Button type="submit" disabled={!file} loading={upload.isPending}>
                Load feed file
              </Button>
            </Group>
          </Group>

          {upload.isPending && (
            <Stack gap={6}>
              <Group justify="space-between" gap="xs" wrap="nowrap">
                <Text size="sm" truncate>
                  {percent >= 100
                    ? `Sent ${file?.name ?? 'the file'}; waiting for the server…`
                    : `Uploading ${file?.name ?? 'the file'}…`}
                </Text>
                <Text size="sm" fw={600} style={{ fontVariantNumeric: 'tabular-nums' }}>
                  {percent} %
                </Text>
              </Group>
              <Progress.Root size="lg">
                <Progress.Section value={percent} animated={percent >= 100} aria-label="Upload progress" />
              </Progress.Root>
            </Stack>
          )}
          {cancelled && (
            <Text size="sm" c="dimmed" role="status">
              Upload cancelled; nothing was loaded.
            </Text>
          )}
          {upload.isError && !cancelled && (
            <Alert
              color="red"
              variant="light"
              title={upload.error instanceof ApiError ? upload.error.problem.title : 'The upload failed'}
              icon={<IconAlertCircle />}
            >
              {errorMessage(upload.error)}
            </Alert>
          )}
        </Stack>
      </form>

      {currentId && (
        <>
          <Divider my="lg" />
          <CurrentLoad id={currentId} />
        </>
      )}
    </Card>
  );
}

/** The load just started, followed live until it ends. */
function CurrentLoad({ id }: { id: string }) {
  const load = useIntelLoad(id);
  if (!load.data) return null;
  return (
    <Stack gap="md" aria-labelledby="current-load-title" component="section">
      <Group gap="sm" style={{ minWidth: 0 }}>
        <Title order={3} size="h5" id="current-load-title" style={{ overflowWrap: 'anywhere' }}>
          {load.data.Source}
        </Title>
        <Text size="sm" c="dimmed">
          {FEEDS[load.data.Feed]?.label ?? load.data.Feed}
        </Text>
        <div aria-live="polite" data-testid="current-load-state">
          <ImportStateBadge state={load.data.State} />
        </div>
      </Group>
      <LoadResult load={load.data} />
    </Stack>
  );
}
