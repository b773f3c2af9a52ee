import type { ReactNode } from 'react';
import { checkLength } from '../text/codePoints.js';

export function Field({
  label,
  hint,
  error,
  aside,
  children,
  htmlFor,
}: {
  label: string;
  hint?: ReactNode;
  error?: ReactNode;
  aside?: ReactNode;
  children: ReactNode;
  htmlFor?: string;
}) {
  return (
    <div className="field">
      <label className="field-label" htmlFor={htmlFor}>
        <span>{label}</span>
        {aside}
      </label>
      {children}
      {error ? (
        <span className="field-error">{error}</span>
      ) : hint ? (
        <span className="field-hint">{hint}</span>
      ) : null}
    </div>
  );
}

/** "12 / 30", amber near the limit, red over it; counted in code points as the server counts. */
export function CharCounter({ text, max, id }: { text: string; max: number; id?: string }) {
  const { count, over, remaining } = checkLength(text, max);
  const cls = over ? 'counter over' : remaining <= Math.ceil(max * 0.1) ? 'counter near' : 'counter';
  return (
    <span className={cls} id={id} aria-live="polite">
      {count} / {max}
    </span>
  );
}
