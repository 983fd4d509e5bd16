import { Anchor, Button, Group, Modal, Select, Stack, Textarea } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { type FormEvent, Fragment, useState } from 'react';
import { Link } from 'react-router';
import { useNodeOptions, useTemplateOptions } from '../../api/scans';
import { NameInput } from '../../components/NameInput';
import { ErrorAlert } from '../../components/QueryError';
import { fieldErrors, ScheduleFields, useScheduleState } from './ScheduleFields';
import { TargetCheck, useTargetCheck } from './TargetCheck';
import { type ListedScan, type ScanKindView, wordsOf } from './view';

/** New or Edit of a scan of one kind: name, the kind's fields, template, node and schedule. */
export function ScanFormModal<S extends ListedScan, B, F extends string>({
  view,
  opened,
  onClose,
  scan,
  onSaved,
}: {
  view: ScanKindView<S, B, F>;
  opened: boolean;
  onClose: () => void;
  scan?: S;
  onSaved?: (scan: S) => void;
}) {
  const noun = view.labels.noun;
  return (
    <Modal opened={opened} onClose={onClose} title={scan ? `Edit ${noun}` : `New ${noun}`} size="lg">
      {opened && (
        <ScanForm
          view={view}
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

type CommonField = 'name' | 'template' | 'node' | 'schedule';
const COMMON_FIELDS: Record<CommonField, readonly string[]> = {
  name: ['/Name'],
  template: ['/TemplateId'],
  node: ['/ScanNodeId'],
  schedule: ['/Schedule'],
};

const MONOSPACE = { input: { fontFamily: 'var(--mantine-font-family-monospace)' } };

function ScanForm<S extends ListedScan, B, F extends string>({
  view,
  scan,
  onDone,
}: {
  view: ScanKindView<S, B, F>;
  scan?: S | undefined;
  onDone: (scan: S) => void;
}) {
  const { form } = view;
  const save = view.hooks.useSave(scan?.Id);
  const templates = useTemplateOptions(view.kind);
  const nodes = useNodeOptions(view.kind);
  const [name, setName] = useState(scan?.Name ?? '');
  const [text, setText] = useState<Record<F, string>>(() => form.initial(scan));
  const [templateId, setTemplateId] = useState<string | null>(scan?.TemplateId ?? null);
  const [nodeId, setNodeId] = useState<string | null>(scan?.ScanNodeId ?? null);
  const schedule = useScheduleState(scan?.Schedule);
  const [errors, setErrors] = useState<Partial<Record<CommonField | F, string>>>({});
  const [formError, setFormError] = useState<unknown>(null);

  const checked = form.checked(text);
  const check = useTargetCheck(checked.targets, checked.exclusions);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setFormError(null);
    const found: Partial<Record<CommonField | F, string>> = {};
    if (!name.trim()) found.name = 'Give the scan a name.';
    for (const field of form.fields) {
      if (field.missing && field.parse(text[field.key]).length === 0) found[field.key] = field.missing;
    }
    if (schedule.missingStart) found.schedule = 'Pick when the schedule starts.';
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    const common = {
      Name: name.trim(),
      ...(templateId ? { TemplateId: templateId } : {}),
      ScanNodeId: nodeId,
      Schedule: schedule.option(),
    };
    save.mutate(form.body(text, common), {
      onSuccess: (saved) => {
        notifications.show({
          color: 'green',
          message: `${wordsOf(view.labels).Noun} “${saved.Name}” saved.`,
        });
        onDone(saved);
      },
      onError: (error) => {
        const paths = Object.fromEntries(form.fields.map((f) => [f.key, [f.path]])) as Record<F, string[]>;
        const byField = fieldErrors<CommonField | F>(error, { ...COMMON_FIELDS, ...paths });
        setErrors(byField ?? {});
        if (!byField) setFormError(error);
      },
    });
  };

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="md">
        <ErrorAlert error={formError} />
        <NameInput value={name} onChange={setName} error={errors.name} />
        {form.fields.map((field, i) => (
          <Fragment key={field.key}>
            <Textarea
              label={field.label}
              description={field.description}
              required={field.missing !== undefined}
              autosize
              minRows={field.minRows}
              spellCheck={false}
              value={text[field.key]}
              onChange={(e) => {
                const value = e.currentTarget.value;
                setText((t) => ({ ...t, [field.key]: value }));
              }}
              error={errors[field.key]}
              styles={MONOSPACE}
            />
            {/* What the server says of the targets shows under the first field, as they are typed. */}
            {i === 0 && <TargetCheck result={check.data} />}
          </Fragment>
        ))}
        <Group grow align="flex-start">
          <Select
            label="Template"
            placeholder={form.templatePlaceholder}
            data={templates.data ?? []}
            value={templateId}
            onChange={setTemplateId}
            error={errors.template}
            clearable
          />
          <Select
            label="Scan node"
            placeholder={wordsOf(view.labels).anyNode}
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
