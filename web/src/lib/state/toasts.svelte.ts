// Transient notices (errors, confirmations) shown in one live region.
export interface Toast {
  id: number;
  kind: 'error' | 'info' | 'success';
  text: string;
}

class Toasts {
  items = $state<Toast[]>([]);
  private next = 1;

  push(kind: Toast['kind'], text: string, ttlMs = kind === 'error' ? 8000 : 4000): number {
    const id = this.next++;
    this.items.push({ id, kind, text });
    if (ttlMs > 0 && typeof setTimeout !== 'undefined') setTimeout(() => this.dismiss(id), ttlMs);
    return id;
  }

  dismiss(id: number) {
    this.items = this.items.filter((t) => t.id !== id);
  }
}

export const toasts = new Toasts();
