import { type ReactNode, useEffect, useRef } from 'react';

/** A modal dialog: focus moves in, Escape cancels. */
export function Dialog({
  title,
  children,
  actions,
  onCancel,
  labelledBy = 'dialog-title',
}: {
  title: ReactNode;
  children: ReactNode;
  actions: ReactNode;
  onCancel?: () => void;
  labelledBy?: string;
}) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    ref.current?.querySelector<HTMLElement>('[data-autofocus], button, input')?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') onCancel?.();
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      previous?.focus?.();
    };
  }, [onCancel]);
  return (
    <div className="overlay">
      <div className="dialog" role="dialog" aria-modal="true" aria-labelledby={labelledBy} ref={ref}>
        <div className="dialog-body">
          <h3 id={labelledBy}>{title}</h3>
          {children}
        </div>
        <div className="dialog-actions">{actions}</div>
      </div>
    </div>
  );
}
