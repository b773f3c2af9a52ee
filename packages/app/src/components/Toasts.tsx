/** Short confirmations ("Pinned", "Key copied") that fade by themselves. */
import { useSyncExternalStore } from 'react';

interface Toast {
  id: number;
  text: string;
  error?: boolean;
}

let toasts: Toast[] = [];
let nextId = 1;
const listeners = new Set<() => void>();
const emit = () => {
  for (const l of listeners) l();
};

export function toast(text: string, options: { error?: boolean } = {}): void {
  const id = nextId++;
  toasts = [...toasts, { id, text, error: options.error }];
  emit();
  setTimeout(
    () => {
      toasts = toasts.filter((t) => t.id !== id);
      emit();
    },
    options.error ? 5000 : 2600,
  );
}

export function ToastHost() {
  const list = useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => toasts,
  );
  return (
    <div className="toast-host" aria-live="polite">
      {list.map((t) => (
        <div key={t.id} className={t.error ? 'toast error' : 'toast'} role={t.error ? 'alert' : 'status'}>
          {t.text}
        </div>
      ))}
    </div>
  );
}
