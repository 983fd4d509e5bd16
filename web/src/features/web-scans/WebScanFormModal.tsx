import { Anchor, Button, Group, Modal, Select, Stack, Textarea, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { splitLines } from '../../api/discovery';
import { useNodeOptions, useTemplateOptions } from '../../api/scans';
import { type WebScan, webScans } from '../../api/webscans';
import { ErrorAlert } from '../../components/QueryError';
import { TargetCheck, useTargetCheck } from '../discovery/TargetCheck';
import { fieldErrors, ScheduleFields, useScheduleState } from '../scans/ScheduleFields';

/** The hosts of the URLs typed so far, as targets the allowed-targets check reads. */
function urlHosts(urls: string[]): { Range: string }[] {
  const hosts = new Set<string>();
  for (const text of urls) {
    try {
      const url = new URL(text);
      if (url.hostname) hosts.add(url.hostname.replace(/^\[|\]$/g, ''));
    } catch {
      // Not a URL yet (still being typed): the server names it when the scan is saved.
    }
  }
  return [...hosts].map((Range) => ({ Range }));
}

export function WebScanFormModal({
  opened,
  onClose,
  scan,
  onSaved,
}: {
  opened: boolean;
  onClose: () => void;
  scan?: WebScan;
  onSaved?: (scan: WebScan) => void;
}) {
  return (
    <Modal opened={opened} onClose={onClose} title={scan ? 'Edit web scan' : 'New web scan'} size="lg">
      {opened && (
        <WebScanForm
          scan={scan}
          onDone={(saved) => {
            onSaved?.(saved);
            onClose();
          }}
        />
      )}
    </Modal>
  );
}

type Field = 'name' | 'urls' | 'template' | 'node' | 'schedule';
const FIELDS: Record<Field, readonly string[]> = {
  name: ['/Name'],
  urls: ['/Urls'],
  template: ['/TemplateId'],
  node: ['/ScanNodeId'],
  schedule: ['/Schedule'],
};

function WebScanForm({ scan, onDone }: { scan?: WebScan; onDone: (scan: WebScan) => void }) {
  const save = webScans.useSave(scan?.Id);
  const templates = useTemplateOptions('Web');
  const nodes = useNodeOptions('Web');
  const [name, setName] = useState(scan?.Name ?? '');
  const [urls, setUrls] = useState((scan?.Urls ?? []).join('\n'));
  const [templateId, setTemplateId] = useState<string | null>(scan?.TemplateId ?? null);
  const [nodeId, setNodeId] = useState<string | null>(scan?.ScanNodeId ?? null);
  const schedule = useScheduleState(scan?.Schedule);
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [formError, setFormError] = useState<unknown>(null);

  const parsedUrls = splitLines(urls);
  const check = useTargetCheck(urlHosts(parsedUrls), []);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setFormError(null);
    const found: Partial<Record<Field, string>> = {};
    if (!name.trim()) found.name = 'Give the scan a name.';
    if (parsedUrls.length === 0) found.urls = 'Enter at least one URL, one per line.';
    if (schedule.missingStart) found.schedule = 'Pick when the schedule starts.';
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    save.mutate(
      {
        Name: name.trim(),
        Urls: parsedUrls,
        ...(templateId ? { TemplateId: templateId } : {}),
        ScanNodeId: nodeId,
        Schedule: schedule.option(),
      },
      {
        onSuccess: (saved) => {
          notifications.show({ color: 'green', message: `Web scan “${saved.Name}” saved.` });
          onDone(saved);
        },
        onError: (error) => {
          const byField = fieldErrors(error, FIELDS);
          setErrors(byField ?? {});
          if (!byField) setFormError(error);
        },
      },
    );
  };

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="md">
        <ErrorAlert error={formError} />
        <TextInput
          label="Name"
          required
          maxLength={200}
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          error={errors.name}
          data-autofocus
        />
        <Textarea
          label="URLs"
          description="One per line: absolute http or https URLs on allowed hosts (https://shop.example.com/)."
          required
          autosize
          minRows={3}
          spellCheck={false}
          value={urls}
          onChange={(e) => setUrls(e.currentTarget.value)}
          error={errors.urls}
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
        />
        <TargetCheck result={check.data} />
        <Group grow align="flex-start">
          <Select
            label="Template"
            placeholder="Web scan [W1]"
            data={templates.data ?? []}
            value={templateId}
            onChange={setTemplateId}
            error={errors.template}
            clearable
          />
          <Select
            label="Scan node"
            placeholder="Any node serving web scans"
            data={nodes.data ?? []}
            value={nodeId}
            onChange={setNodeId}
            error={errors.node}
            clearable
          />
        </Group>
        <ScheduleFields state={schedule} error={errors.schedule} />
        <Anchor component={Link} to="/settings#allowed-targets" size="xs">
          Allowed scan targets
        </Anchor>
        <Group justify="flex-end">
          <Button type="submit" loading={save.isPending}>
            {scan ? 'Save' : 'Create scan'}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
