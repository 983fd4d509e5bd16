import {
  Alert,
  Anchor,
  Button,
  Card,
  Divider,
  Group,
  Progress,
  Select,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useRef, useState } from 'react';
import { Link } from 'react-router';
import { ApiError, errorMessage } from '../../api/client';
import { type Import, importsKey, uploadReport, useImport, useImportFormats } from '../../api/imports';
import { IconAlertCircle } from '../../icons';
import { FormatsAlert } from './FormatsAlert';
import { importName } from './format';
import { ImportResult } from './ImportResult';
import { ImportStateBadge } from './ImportStateBadge';
import { ReportDropZone } from './ReportDropZone';

const DETECT = 'detect';

interface UploadRequest {
  file: File;
  format?: string;
  scopeName?: string;
}

/** Choose a report and its options, send it with a progress bar, then follow the import to its end. */
export function UploadCard() {
  const client = useQueryClient();
  const formats = useImportFormats();
  const [file, setFile] = useState<File | null>(null);
  const [format, setFormat] = useState(DETECT);
  const [scopeName, setScopeName] = useState('');
  const [progress, setProgress] = useState(0);
  const [currentId, setCurrentId] = useState<string | null>(null);
  const abort = useRef<AbortController | null>(null);

  const upload = useMutation({
    mutationFn: ({ file: report, ...options }: UploadRequest) => {
      abort.current = new AbortController();
      return uploadReport(report, { ...options, signal: abort.current.signal }, setProgress);
    },
    onSuccess: (item: Import) => {
      client.setQueryData([...importsKey, 'detail', item.Id], item);
      void client.invalidateQueries({ queryKey: [...importsKey, 'list'] });
      setCurrentId(item.Id);
      // The next report starts afresh: a scope carried over by mistake would fix the wrong findings.
      setFile(null);
      setFormat(DETECT);
      setScopeName('');
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!file) return;
    setCurrentId(null);
    upload.mutate({
      file,
      format: format === DETECT ? undefined : format,
      scopeName: scopeName.trim() || undefined,
    });
  };

  const cancelled = upload.error instanceof DOMException && upload.error.name === 'AbortError';

  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="upload-title">
      <Title order={2} size="h4" id="upload-title" mb="sm">
        Import a report
      </Title>
      <form onSubmit={submit} noValidate>
        <Stack gap="md">
          <ReportDropZone
            file={file}
            onFile={(chosen) => {
              setFile(chosen);
              upload.reset();
            }}
            disabled={upload.isPending}
          />
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
            <Select
              label="Format"
              description="Rampart tells the format from the content unless you choose one."
              data={[
                { value: DETECT, label: 'Detect automatically' },
                ...(formats.data ?? []).map((f) => ({ value: f.Format, label: f.Label })),
              ]}
              value={format}
              onChange={(value) => setFormat(value ?? DETECT)}
              allowDeselect={false}
              disabled={upload.isPending}
            />
            <TextInput
              label="Scope name"
              description="Optional. Open findings last reported under this name and missing here become Fixed."
              placeholder="e.g. weekly-dmz"
              maxLength={200}
              value={scopeName}
              onChange={(e) => setScopeName(e.currentTarget.value)}
              disabled={upload.isPending}
            />
          </SimpleGrid>
          <Group justify="flex-end" gap="sm">
            {upload.isPending && (
              <Button variant="default" onClick={() => abort.current?.abort()}>
                Cancel upload
              </Button>
            )}
            <Button type="submit" disabled={!file} loading={upload.isPending}>
              Import report
            </Button>
          </Group>

          {upload.isPending && <UploadProgress name={file?.name ?? 'report'} fraction={progress} />}
          {cancelled && (
            <Text size="sm" c="dimmed" role="status">
              Upload cancelled; nothing was imported.
            </Text>
          )}
          {upload.isError && !cancelled && <UploadError error={upload.error} />}
        </Stack>
      </form>

      {currentId && (
        <>
          <Divider my="lg" />
          <CurrentImport id={currentId} />
        </>
      )}
    </Card>
  );
}

function UploadProgress({ name, fraction }: { name: string; fraction: number }) {
  const percent = Math.min(100, Math.round(fraction * 100));
  const sent = percent >= 100;
  return (
    <Stack gap={6}>
      <Group justify="space-between" gap="xs" wrap="nowrap">
        <Text size="sm" truncate>
          {sent ? `Sent ${name}; waiting for the server…` : `Uploading ${name}…`}
        </Text>
        <Text size="sm" fw={600} style={{ fontVariantNumeric: 'tabular-nums' }}>
          {percent} %
        </Text>
      </Group>
      <Progress.Root size="lg">
        <Progress.Section value={percent} animated={sent} aria-label="Upload progress" />
      </Progress.Root>
    </Stack>
  );
}

function UploadError({ error }: { error: Error }) {
  if (error instanceof ApiError && error.status === 422) return <FormatsAlert problem={error.problem} />;
  const title = error instanceof ApiError ? error.problem.title : 'The upload failed';
  return (
    <Alert color="red" variant="light" title={title} icon={<IconAlertCircle />}>
      {errorMessage(error)}
    </Alert>
  );
}

/** The import just sent, followed live until it ends. */
function CurrentImport({ id }: { id: string }) {
  const item = useImport(id);
  if (!item.data) return null;
  return (
    <Stack gap="md" aria-labelledby="current-import-title" component="section">
      <Group justify="space-between" gap="sm">
        <Group gap="sm" style={{ minWidth: 0 }}>
          <Title order={3} size="h5" id="current-import-title" style={{ overflowWrap: 'anywhere' }}>
            {importName(item.data)}
          </Title>
          <div aria-live="polite" data-testid="current-import-state">
            <ImportStateBadge state={item.data.State} attention={item.data.Attention} />
          </div>
        </Group>
        <Anchor component={Link} to={`/imports/${id}`} size="sm">
          Open the import
        </Anchor>
      </Group>
      <ImportResult item={item.data} />
    </Stack>
  );
}
