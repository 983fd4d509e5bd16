import { Anchor, Button, Group, Modal, Select, Stack, Textarea, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { ApiError, api } from '../../api/client';
import {
  type DiscoveryScan,
  parseTargetLines,
  splitLines,
  useSaveDiscoveryScan,
  useScanTemplates,
} from '../../api/discovery';
import type { ResponseOf } from '../../api/types';
import { ErrorAlert } from '../../components/QueryError';
import { ScheduleFields, useScheduleState } from '../scans/ScheduleFields';
import { TargetCheck, useTargetCheck } from './TargetCheck';

type NodePage = ResponseOf<'listScanNodes'>;
export function ScanFormModal({
  opened,
  onClose,
  scan,
  onSaved,
}: {
  opened: boolean;
  onClose: () => void;
  scan?: DiscoveryScan;
  onSaved?: (scan: DiscoveryScan) => void;
}) {
  return (
    <Modal
      opened={opened}
      onClose={onClose}
      title={scan ? 'Edit discovery scan' : 'New discovery scan'}
      size="lg"
    >
      {opened && (
        <ScanForm
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

function targetText(scan?: DiscoveryScan): string {
  return (scan?.ScanTargets ?? []).map((t) => (t.Name ? `${t.Range} ${t.Name}` : t.Range)).join('\n');
}

function ScanForm({ scan, onDone }: { scan?: DiscoveryScan; onDone: (scan: DiscoveryScan) => void }) {
  const save = useSaveDiscoveryScan(scan?.Id);
  const templates = useScanTemplates();
  const nodes = useQuery({
    queryKey: ['scan-nodes', 'list'],
    queryFn: ({ signal }) => api<NodePage>('/scannodes', { signal }),
  });
  const [name, setName] = useState(scan?.Name ?? '');
  const [targets, setTargets] = useState(targetText(scan));
  const [exclusions, setExclusions] = useState((scan?.Exclusions ?? []).join('\n'));
  const [templateId, setTemplateId] = useState<string | null>(scan?.TemplateId ?? null);
  const [nodeId, setNodeId] = useState<string | null>(scan?.ScanNodeId ?? null);
  const schedule = useScheduleState(scan?.Schedule);
  const [errors, setErrors] = useState<{
    name?: string;
    targets?: string;
    exclusions?: string;
    schedule?: string;
  }>({});
  const [formError, setFormError] = useState<unknown>(null);

  const parsedTargets = parseTargetLines(targets);
  const parsedExclusions = splitLines(exclusions);
  const check = useTargetCheck(parsedTargets, parsedExclusions);

  const templateOptions = (templates.data?.Items ?? []).map((t) => ({ value: t.Id, label: t.Name }));
  const nodeOptions = (nodes.data?.Items ?? [])
    .filter((n) => n.Kinds.includes('Discovery') && !n.RevokedAt)
    .map((n) => ({ value: n.Id, label: `${n.Name} (${n.State})` }));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setFormError(null);
    const found: typeof errors = {};
    if (!name.trim()) found.name = 'Give the scan a name.';
    if (parsedTargets.length === 0) found.targets = 'Enter at least one range, one per line.';
    if (schedule.missingStart) found.schedule = 'Pick when the schedule starts.';
    setErrors(found);
    if (found.name || found.targets || found.schedule) return;
    save.mutate(
      {
        Name: name.trim(),
        ScanTargets: parsedTargets,
        Exclusions: parsedExclusions,
        ...(templateId ? { TemplateId: templateId } : {}),
        ScanNodeId: nodeId,
        Schedule: schedule.option(),
      },
      {
        onSuccess: (saved) => {
          notifications.show({ color: 'green', message: `Discovery scan “${saved.Name}” saved.` });
          onDone(saved);
        },
        onError: (error) => {
          if (error instanceof ApiError) {
            const at = (prefix: string) =>
              error.problem.errors?.find((e) => e.path.startsWith(prefix))?.message;
            const byField = { name: at('/Name'), targets: at('/Targets'), exclusions: at('/Exclusions') };
            setErrors(byField);
            if (!Object.values(byField).some(Boolean)) setFormError(error);
          } else setFormError(error);
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
          label="Targets"
          description="One per line: a CIDR (198.18.0.0/24), a range (10.0.0.1-10.0.0.40), an address or a host name, optionally followed by a name."
          required
          autosize
          minRows={3}
          spellCheck={false}
          value={targets}
          onChange={(e) => setTargets(e.currentTarget.value)}
          error={errors.targets}
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
        />
        <TargetCheck result={check.data} />
        <Textarea
          label="Exclusions"
          description="Addresses or ranges to leave out, one per line."
          autosize
          minRows={1}
          spellCheck={false}
          value={exclusions}
          onChange={(e) => setExclusions(e.currentTarget.value)}
          error={errors.exclusions}
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
        />
        <Group grow align="flex-start">
          <Select
            label="Template"
            placeholder="Host Discovery [T1]"
            data={templateOptions}
            value={templateId}
            onChange={setTemplateId}
            clearable
          />
          <Select
            label="Scan node"
            placeholder="Any node serving discovery"
            data={nodeOptions}
            value={nodeId}
            onChange={setNodeId}
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
