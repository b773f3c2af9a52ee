/** Loading, empty and error states, so that no screen is ever just blank. */
import type { ReactNode } from 'react';
import { WharfApiError } from '@wharf/sdk';
import { Icon, type IconName } from './Icon.js';

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="loading" role="status">
      <span className="spinner" />
      {label}
    </div>
  );
}

export function EmptyState({
  icon,
  title,
  children,
  action,
}: {
  icon: IconName;
  title: string;
  children?: ReactNode;
  action?: ReactNode;
}) {
  return (
    <div className="empty">
      <div className="empty-icon">
        <Icon name={icon} size={22} />
      </div>
      <h3>{title}</h3>
      {children ? <p>{children}</p> : null}
      {action}
    </div>
  );
}

/** Says what went wrong in words a person can act on. */
export function describeError(error: unknown): string {
  // fetch rejects with a TypeError when no answer came at all.
  if (error instanceof TypeError && /fetch|network/i.test(error.message))
    return 'The platform server cannot be reached. Is `wharf up` running?';
  if (error instanceof WharfApiError) {
    if (error.status === 404 && /no route/i.test(error.message))
      return 'This server does not offer that yet (the route is missing).';
    if (error.status === 429) return 'Too many requests; wait a moment and try again.';
    return error.message;
  }
  // EIP-1193 errors carry a numeric code (4001 rejected, 4902 unknown chain, ...): show it.
  const code = (error as { code?: unknown } | null)?.code;
  if (error instanceof Error) return typeof code === 'number' ? `${error.message} (${code})` : error.message;
  return String(error);
}

export function ErrorAlert({
  error,
  onRetry,
  title,
}: {
  error: unknown;
  onRetry?: () => void;
  title?: string;
}) {
  return (
    <div className="alert alert-danger" role="alert">
      <div className="grow">
        {title ? <strong>{title}</strong> : null}
        <p>{describeError(error)}</p>
      </div>
      {onRetry ? (
        <button type="button" className="btn btn-sm" onClick={onRetry}>
          Retry
        </button>
      ) : null}
    </div>
  );
}
