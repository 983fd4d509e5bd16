import { createTheme, type MantineColorsTuple } from '@mantine/core';

// A calm navy blue: reads as "security product" without the alarm of red or orange.
const rampart: MantineColorsTuple = [
  '#eef3ff',
  '#dce4f5',
  '#b9c7e2',
  '#94a8d0',
  '#748dc1',
  '#5f7cb8',
  '#5474b4',
  '#44639f',
  '#39588f',
  '#2d4b81',
];

export const theme = createTheme({
  colors: { rampart },
  primaryColor: 'rampart',
  primaryShade: { light: 7, dark: 5 },
  defaultRadius: 'sm',
  focusRing: 'auto',
  fontFamily:
    'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif',
  fontFamilyMonospace: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace',
  headings: {
    fontWeight: '600',
    sizes: { h1: { fontSize: '1.75rem', lineHeight: '1.3' } },
  },
  cursorType: 'pointer',
  // Labels read exactly as written ("New password", not "New password *"), for people and for
  // tools that find fields by label; optional fields say so in their description instead.
  // Plain objects rather than Select.extend(), so the theme does not pull Select into the first page.
  components: {
    TextInput: { defaultProps: { withAsterisk: false } },
    PasswordInput: { defaultProps: { withAsterisk: false } },
    Select: { defaultProps: { withAsterisk: false } },
    // Sentence case reads calmer in dense tables than Mantine's default capitals.
    Badge: { defaultProps: { tt: 'none' } },
  },
});
