import { ActionIcon, TextInput, type TextInputProps } from '@mantine/core';
import { useRef, useState } from 'react';
import { dayExample, formatDay, parseDay } from '../dates';
import { IconCalendar } from '../icons';

interface DayInputProps extends Omit<TextInputProps, 'value' | 'onChange' | 'type' | 'min' | 'max'> {
  /** The day as YYYY-MM-DD; '' when empty. */
  value: string;
  /**
   * Called with the day (YYYY-MM-DD) once the text reads as one, '' when emptied, and the text
   * itself while it is not a day yet, so that the form's own check can say what is wrong.
   */
  onChange: (value: string) => void;
  /** The first and last day the calendar offers (YYYY-MM-DD). */
  min?: string;
  max?: string;
}

/**
 * A day field in the app's date style: it shows "Nov 24, 2026" where the tables show "Nov 24,
 * 2026" (the browser's own date field would show 11/24/2026), takes that or 2026-11-24 typed,
 * and opens the browser's calendar from its button.
 */
export function DayInput({ value, onChange, min, max, label, error, ...props }: DayInputProps) {
  const [text, setText] = useState(() => (parseDay(value) ? formatDay(value) : value));
  // Said as soon as the field is left, not only when the form is sent.
  const [unreadable, setUnreadable] = useState(false);
  const picker = useRef<HTMLInputElement>(null);
  const day = parseDay(value);

  const choose = (chosen: string) => {
    setText(chosen ? formatDay(chosen) : '');
    setUnreadable(false);
    onChange(chosen);
  };

  return (
    <TextInput
      {...props}
      label={label}
      value={text}
      placeholder={props.placeholder ?? dayExample()}
      autoComplete="off"
      error={error ?? (unreadable ? `Write the date like ${dayExample()}.` : undefined)}
      onChange={(e) => {
        const typed = e.currentTarget.value;
        setText(typed);
        setUnreadable(false);
        onChange(typed.trim() === '' ? '' : (parseDay(typed) ?? typed));
      }}
      // What was typed as "24 nov 2026" or 2026-11-24 reads back in the app's style.
      onBlur={(e) => {
        const typed = parseDay(text);
        if (typed) setText(formatDay(typed));
        setUnreadable(!typed && text.trim() !== '');
        props.onBlur?.(e);
      }}
      rightSectionWidth={36}
      rightSection={
        <>
          <ActionIcon
            variant="subtle"
            color="gray"
            // Not named after the field: its label stays the field's alone.
            aria-label="Pick a day from a calendar"
            disabled={props.disabled}
            onClick={() => {
              const input = picker.current;
              if (!input) return;
              // showPicker needs a recent click; older browsers without it get focus instead.
              if (typeof input.showPicker === 'function') input.showPicker();
              else input.focus();
            }}
          >
            <IconCalendar size={16} />
          </ActionIcon>
          {/* The browser's calendar, without its field: out of sight and out of the tab order. */}
          <input
            ref={picker}
            type="date"
            tabIndex={-1}
            aria-hidden
            value={day ?? ''}
            min={min}
            max={max}
            onChange={(e) => choose(e.currentTarget.value)}
            style={{
              position: 'absolute',
              right: 0,
              bottom: 0,
              width: 1,
              height: 1,
              opacity: 0,
              border: 0,
              padding: 0,
              pointerEvents: 'none',
            }}
          />
        </>
      }
    />
  );
}
