/**
 * The project's webhook: its URL (set, change, remove), the signing secret (shown once when first
 * set and at each rotation), and the delivery log — each event's status, attempts, last answer and
 * body — with "Resend". The log refreshes every few seconds while the page is open.
 */
import { type FormEvent, useEffect, useState } from 'react';
import type { Project, WebhookDelivery } from '@wharf/sdk';
import { Address } from '../components/Address.js';
import { Button } from '../components/Button.js';
import { CopyButton } from '../components/CopyButton.js';
import { Dialog } from '../components/Dialog.js';
import { Icon } from '../components/Icon.js';
import { ErrorAlert, describeError } from '../components/States.js';
import { toast } from '../components/Toasts.js';
import { useAsync } from '../hooks/useAsync.js';
import { useDashboard } from './DashboardContext.js';
import { relativeTime } from '../text/relativeTime.js';

const statusBadge: Record<WebhookDelivery['status'], string> = {
  delivered: 'badge badge-success',
  pending: 'badge badge-warning',
  failed: 'badge badge-danger',
};

export function WebhookPanel({ project }: { project: Project }) {
  const { api } = useDashboard();
  const webhook = useAsync(() => api.webhook(project.projectId), [api, project.projectId]);
  const log = useAsync(
    () => api.webhookDeliveries(project.projectId, { limit: 50 }),
    [api, project.projectId],
  );
  const [url, setUrl] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState<string>();
  const [secret, setSecret] = useState<string>();
  const current = webhook.data?.url ?? null;
  const reloadLog = log.reload;

  useEffect(() => {
    const timer = setInterval(reloadLog, 3000);
    return () => clearInterval(timer);
  }, [reloadLog]);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    setBusy('save');
    setError(undefined);
    try {
      const result = await api.setWebhook(project.projectId, url.trim());
      if (result.secret) setSecret(result.secret);
      else toast('Webhook URL changed; the secret stays the same');
      setUrl('');
      webhook.reload();
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(undefined);
    }
  };
  const act = async (name: string, run: () => Promise<unknown>) => {
    setBusy(name);
    try {
      await run();
    } catch (e) {
      toast(describeError(e), { error: true });
    } finally {
      setBusy(undefined);
    }
  };
  const rotate = () =>
    act('rotate', async () => {
      const result = await api.rotateWebhookSecret(project.projectId);
      if (result.secret) setSecret(result.secret);
      webhook.reload();
    });
  const remove = () =>
    act('remove', async () => {
      await api.removeWebhook(project.projectId);
      toast('Webhook removed');
      webhook.reload();
    });
  const resend = (id: string) =>
    act(`resend:${id}`, async () => {
      await api.resendWebhookDelivery(project.projectId, id);
      toast('Queued again');
      reloadLog();
    });

  const deliveries = log.data?.deliveries ?? [];
  return (
    <section className="card section" data-testid="webhook-panel">
      <div className="card-header">
        <h3>Webhook</h3>
        {current ? <span className="badge badge-success">On</span> : <span className="badge">Off</span>}
      </div>
      <div className="card-body stack">
        <p className="muted small">
          Events <code>miniapp_added</code>, <code>miniapp_removed</code>, <code>notifications_enabled</code>{' '}
          and <code>notifications_disabled</code> are POSTed to this URL, signed in{' '}
          <code>X-Wharf-Signature</code> (check it with <code>verifyWebhook</code> of <code>@wharf/sdk</code>
          ).
        </p>
        {current ? (
          <div className="row row-wrap">
            <span className="grow mono small truncate" title={current} data-testid="webhook-url">
              {current}
            </span>
            <Button size="sm" onClick={rotate} busy={busy === 'rotate'}>
              <Icon name="key" size={14} /> Rotate secret
            </Button>
            <Button
              size="sm"
              variant="ghost"
              onClick={remove}
              busy={busy === 'remove'}
              aria-label="Remove webhook"
            >
              <Icon name="trash" size={14} />
            </Button>
          </div>
        ) : null}
        {webhook.data?.previousSecretExpiresAt ? (
          <p className="small muted">
            The previous secret also signs until{' '}
            {new Date(webhook.data.previousSecretExpiresAt).toLocaleString()}.
          </p>
        ) : null}
      </div>
      <form className="card-footer" onSubmit={save}>
        <div className="grow stack" style={{ gap: 4 }}>
          <input
            className={error ? 'input mono invalid' : 'input mono'}
            placeholder={current ?? 'http://localhost:4000/webhooks'}
            aria-label="Webhook URL"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
          />
          {error ? <span className="field-error">{error}</span> : null}
        </div>
        <Button type="submit" busy={busy === 'save'} disabled={url.trim() === ''}>
          {current ? 'Change' : 'Set'}
        </Button>
      </form>
      <div className="card-header">
        <h3>Delivery log</h3>
        <Button size="sm" variant="ghost" onClick={reloadLog} aria-label="Refresh the delivery log">
          <Icon name="refresh" size={14} />
        </Button>
      </div>
      {log.error ? <ErrorAlert error={log.error} onRetry={reloadLog} /> : null}
      {deliveries.length === 0 ? (
        <p className="card-body muted small">No events yet.</p>
      ) : (
        <ul className="list" data-testid="webhook-log">
          {deliveries.map((d) => (
            <li key={d.id} className="list-item stack" style={{ alignItems: 'stretch' }}>
              <div className="row row-wrap">
                <span className={statusBadge[d.status]}>{d.status}</span>
                <strong className="small">{d.event}</strong>
                <Address address={d.walletAddress} />
                <span className="grow small muted">
                  {d.attempts} attempt{d.attempts === 1 ? '' : 's'}
                  {d.lastStatusCode !== null ? ` · answered ${d.lastStatusCode}` : ''}
                  {d.lastError && d.status !== 'delivered' ? ` · ${d.lastError}` : ''}
                  {d.lastAttemptAt ? ` · ${relativeTime(d.lastAttemptAt)}` : ''}
                </span>
                {d.status !== 'pending' ? (
                  <Button size="sm" onClick={() => resend(d.id)} busy={busy === `resend:${d.id}`}>
                    Resend
                  </Button>
                ) : null}
              </div>
              <details>
                <summary className="small muted">Body</summary>
                <pre className="mono small" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
                  {d.body}
                </pre>
              </details>
            </li>
          ))}
        </ul>
      )}
      {secret ? (
        <Dialog
          title="Your webhook signing secret"
          onCancel={() => setSecret(undefined)}
          actions={
            <Button variant="primary" onClick={() => setSecret(undefined)} data-autofocus>
              I saved it
            </Button>
          }
        >
          <p className="small">
            Copy it now: this is the only time it is shown. Your back end checks each request with it.
          </p>
          <div className="secret">
            <code data-testid="webhook-secret">{secret}</code>
            <CopyButton text={secret} />
          </div>
        </Dialog>
      ) : null}
    </section>
  );
}
