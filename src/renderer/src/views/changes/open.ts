import { useWindow } from '../../state/store';

/** Opens a seat's Changes view (from its rail row, its pane header or the palette). */
export function openChanges(seat: string): void {
  useWindow.setState({ dialog: { kind: 'changes', seat }, palette: false });
}
