import { Button, FileButton, Paper, Stack, Text } from '@mantine/core';
import { type DragEvent, useId, useRef, useState } from 'react';
import { IconFileUpload } from '../../icons';
import { formatBytes } from './format';

interface ReportDropZoneProps {
  file: File | null;
  onFile: (file: File) => void;
  disabled?: boolean;
  /** What the zone takes, in words (the feed status page drops a "feed file"). */
  noun?: string;
  /** What the empty zone asks for. */
  prompt?: string;
  /** The file input's label. */
  inputLabel?: string;
  /** The formats taken. */
  hint?: string;
}

/**
 * Where a report is dropped, or chosen with the button (the way in for keyboards and screen
 * readers: the zone itself is only a larger target for the mouse).
 */
export function ReportDropZone({
  file,
  onFile,
  disabled = false,
  noun = 'report',
  prompt = 'Drag a scanner report here',
  inputLabel = 'Report file',
  hint = 'XML, JSON or CSV from Nessus, Qualys, OpenVAS, Nmap, Trivy and more; gzip is fine.',
}: ReportDropZoneProps) {
  const [dragging, setDragging] = useState(false);
  const hintId = useId();
  // Emptied after each choice, so that choosing the same file again (a re-import) is noticed.
  const resetRef = useRef<() => void>(null);

  const over = (event: DragEvent) => {
    if (disabled || !event.dataTransfer.types.includes('Files')) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'copy';
    setDragging(true);
  };
  const leave = (event: DragEvent) => {
    // Moving onto a child fires dragleave on the zone: only leaving the zone itself counts.
    if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDragging(false);
  };
  const drop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    const dropped = event.dataTransfer.files[0];
    if (!disabled && dropped) onFile(dropped);
  };

  return (
    <Paper
      withBorder
      radius="md"
      p="lg"
      onDragEnter={over}
      onDragOver={over}
      onDragLeave={leave}
      onDrop={drop}
      role="group"
      aria-label={`Drop zone for a ${noun}`}
      data-dragging={dragging || undefined}
      style={{
        borderStyle: 'dashed',
        borderWidth: 2,
        borderColor: dragging ? 'var(--mantine-primary-color-filled)' : undefined,
        background: dragging ? 'var(--mantine-primary-color-light)' : undefined,
        transition: 'background 120ms, border-color 120ms',
      }}
    >
      <Stack align="center" gap={6} ta="center">
        <IconFileUpload size={36} stroke={1.5} color="var(--mantine-color-dimmed)" aria-hidden />
        {file ? (
          <>
            <Text fw={600} style={{ overflowWrap: 'anywhere' }} data-testid="chosen-file">
              {file.name}
            </Text>
            <Text size="sm" c="dimmed">
              {formatBytes(file.size)}
            </Text>
          </>
        ) : (
          <Text fw={500}>{dragging ? `Drop the ${noun} to choose it` : prompt}</Text>
        )}
        <FileButton
          onChange={(chosen) => {
            if (chosen) onFile(chosen);
            resetRef.current?.();
          }}
          resetRef={resetRef}
          disabled={disabled}
          inputProps={{ 'aria-label': inputLabel, 'aria-describedby': hintId }}
        >
          {(props) => (
            <Button {...props} variant="default" mt={4} disabled={disabled}>
              {file ? 'Choose another file' : 'Choose file'}
            </Button>
          )}
        </FileButton>
        <Text size="xs" c="dimmed" id={hintId}>
          {hint}
        </Text>
      </Stack>
    </Paper>
  );
}
