import { Button } from '@mantine/core';
import { IconPencil, IconTrash } from '../icons';

const SMALL = { size: 'xs', variant: 'default' } as const;

/** Edit and Delete on a page about one item (Delete asks first, in the page's confirmation). */
export function EditDeleteButtons({
  onEdit,
  onDelete,
  deleteDisabled,
}: {
  onEdit: () => void;
  onDelete: () => void;
  /** While the item is busy (a scan runs) it cannot be deleted. */
  deleteDisabled?: boolean;
}) {
  return (
    <>
      <Button {...SMALL} leftSection={<IconPencil size={14} />} onClick={onEdit}>
        Edit
      </Button>
      <Button
        {...SMALL}
        color="red"
        leftSection={<IconTrash size={14} />}
        onClick={onDelete}
        disabled={deleteDisabled}
      >
        Delete
      </Button>
    </>
  );
}
