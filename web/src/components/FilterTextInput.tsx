import { TextInput, type TextInputProps } from '@mantine/core';
import { useEffect, useState } from 'react';

interface FilterTextInputProps extends Omit<TextInputProps, 'value' | 'onChange' | 'error'> {
  /** The applied value (from the address). */
  value: string;
  /** Applies a new value; called a moment after typing stops, or at once on Enter. */
  onCommit: (value: string) => void;
  /** A reason the typed text cannot be applied, or undefined. */
  validate?: (value: string) => string | undefined;
}

/** A text filter that applies as the user pauses, and follows the address (back button, links). */
export function FilterTextInput({ value, onCommit, validate, ...props }: FilterTextInputProps) {
  const [text, setText] = useState(value);
  const [applied, setApplied] = useState(value);
  if (applied !== value) {
    setApplied(value);
    if (text.trim() !== value) setText(value);
  }
  const trimmed = text.trim();
  const problem = trimmed ? validate?.(trimmed) : undefined;

  // biome-ignore lint/correctness/useExhaustiveDependencies: only typing schedules a commit
  useEffect(() => {
    if (trimmed === value || problem) return;
    const timer = setTimeout(() => onCommit(trimmed), 350);
    return () => clearTimeout(timer);
  }, [trimmed]);

  return (
    <TextInput
      {...props}
      value={text}
      onChange={(e) => setText(e.currentTarget.value)}
      onKeyDown={(e) => {
        if (e.key === 'Enter' && trimmed !== value && !problem) onCommit(trimmed);
      }}
      error={problem}
    />
  );
}
