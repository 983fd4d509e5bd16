import { NumberInput, type NumberInputProps } from '@mantine/core';
import { useEffect, useState } from 'react';

interface RiskMinInputProps extends Omit<NumberInputProps, 'value' | 'onChange' | 'min' | 'max'> {
  /** The applied minimum (from the address); undefined: any risk. */
  value: number | undefined;
  /** Applies a new minimum; called a moment after typing stops, or at once on Enter. */
  onCommit: (value: number | undefined) => void;
}

/** Parses the RiskMin parameter: a number from 1 to 100, else none (0 filters nothing). */
export function riskMinParam(text: string | null): number | undefined {
  if (!text) return undefined;
  const value = Number(text);
  return Number.isFinite(value) && value > 0 && value <= 100 ? value : undefined;
}

/** "Risk at least": a number from 0 to 100 that applies as the user pauses. */
export function RiskMinInput({ value, onCommit, ...props }: RiskMinInputProps) {
  const [text, setText] = useState<number | string>(value ?? '');
  const [applied, setApplied] = useState(value);
  if (applied !== value) {
    setApplied(value);
    setText(value ?? '');
  }
  const typed = typeof text === 'number' && text > 0 ? Math.min(100, text) : undefined;

  // biome-ignore lint/correctness/useExhaustiveDependencies: only typing schedules a commit
  useEffect(() => {
    if (typed === value) return;
    const timer = setTimeout(() => onCommit(typed), 350);
    return () => clearTimeout(timer);
  }, [typed]);

  return (
    <NumberInput
      {...props}
      min={0}
      max={100}
      step={5}
      clampBehavior="strict"
      allowNegative={false}
      value={text}
      onChange={setText}
      onKeyDown={(e) => {
        if (e.key === 'Enter' && typed !== value) onCommit(typed);
      }}
    />
  );
}
