// The package types only its barrel file; importing one icon file each keeps the build from
// parsing all ~6,000 icons, so describe those files here.
declare module '@tabler/icons-react/dist/esm/icons/*.mjs' {
  import type { TablerIcon } from '@tabler/icons-react';

  const Icon: TablerIcon;
  export default Icon;
}
