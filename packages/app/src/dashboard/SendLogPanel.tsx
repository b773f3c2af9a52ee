/**
 * The project's send log: its sends (API key or dashboard test send), newest first, each row
 * expandable to its per-address results. The first page refreshes every few seconds while the
 * page is open; "Older" appends the next page. Sends are kept `--send-log-days` (30 by default).
 */
import { useEffect, useState } from 'react';
import type { Project, SendLogEntry } from '@wharf/sdk';
import { Address } from '../components/Address.js';
import { Button } from '../components/Button.js';
import { Icon } from '../components/Icon.js';
import { ErrorAlert, describeError } from '../components/States.js';
import { toast } from '../components/Toasts.js';
import { useAsync } from '../hooks/useAsync.js';
import { relativeTime } from '../text/relativeTime.js';
import { useDashboard } from './DashboardContext.js';

export function SendLogPanel({ project }: { project: Project }) {
  const { api } = useDashboard();
  const first = useAsync(() => api.sends(project.projectId, { limit: 20 }), [api, project.projectId]);
  const [older, setOlder] = useState<{ sends: SendLogEntry[]; nextCursor?: string }>();
  const [busy, setBusy] = useState(false);
  const reload = first.reload;

  useEffect(() => {
    const timer = setInterval(reload, 5000);
    return () => clearInterval(timer);
  }, [reload]);

  // The first page refreshes while older pages stay: a send may be in both after new ones arrive.
  const seen = new Set<string>();
  const sends = [...(first.data?.sends ?? []), ...(older?.sends ?? [])].filter(
    (s) => !seen.has(s.id) && seen.add(s.id),
  );
  const nextCursor = older ? older.nextCursor : first.data?.nextCursor;
  const loadOlder = async () => {
    if (!nextCursor) return;
    setBusy(true);
    try {
      const page = await api.sends(project.projectId, { before: nextCursor, limit: 20 });
      setOlder((o) => ({ sends: [...(o?.sends ?? []), ...page.sends], nextCursor: page.nextCursor }));
    } catch (e) {
      toast(describeError(e), { error: true });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card section" data-testid="send-log-panel">
      <div className="card-header">
        <h3>Send log</h3>
        <Button size="sm" variant="ghost" onClick={reload} aria-label="Refresh the send log">
          <Icon name="refresh" size={14} />
        </Button>
      </div>
      {first.error ? <ErrorAlert error={first.error} onRetry={reload} /> : null}
      {sends.length === 0 ? (
        <p className="card-body muted small">No sends yet.</p>
      ) : (
        <ul className="list" data-testid="send-log">
          {sends.map((s) => (
            <li key={s.id} className="list-item stack" style={{ alignItems: 'stretch' }}>
              <details>
                <summary className="row row-wrap">
                  <strong className="small">{s.title}</strong>
                  {s.targetPath ? <code className="small">{s.targetPath}</code> : null}
                  <span className={s.sentCount > 0 ? 'badge badge-success' : 'badge'}>
                    {s.sentCount} sent
                  </span>
                  {s.failedCount > 0 ? (
                    <span className="badge badge-danger">{s.failedCount} failed</span>
                  ) : null}
                  <span className="badge">{s.sentBy === 'key' ? 'API key' : 'dashboard'}</span>
                  <span className="grow small muted" title={new Date(s.createdAt).toLocaleString()}>
                    {relativeTime(s.createdAt)}
                  </span>
                </summary>
                <ul className="list">
                  {s.results.map((r) => (
                    <li key={r.walletAddress} className="list-item row">
                      <Address address={r.walletAddress} />
                      <span className={r.sent ? 'small' : 'small muted'}>
                        {r.sent ? 'sent' : `not sent: ${r.failureReason ?? 'failed'}`}
                      </span>
                    </li>
                  ))}
                </ul>
              </details>
            </li>
          ))}
        </ul>
      )}
      {nextCursor ? (
        <div className="card-footer">
          <Button size="sm" onClick={loadOlder} busy={busy}>
            Older
          </Button>
        </div>
      ) : null}
    </section>
  );
}
