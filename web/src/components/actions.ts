import type { IconName } from './Icon.svelte';

/** One command shown in the toolbar and the context menu. */
export interface Action {
  id: string;
  label: string;
  icon: IconName;
  run: () => void;
  /** keyboard hint shown in the menu */
  shortcut?: string;
  danger?: boolean;
}
