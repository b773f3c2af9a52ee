/** The project's app URLs: add (normalized and validated by the server) and remove. */
import { type FormEvent, useState } from 'react';
import type { Project } from '@wharf/sdk';
import { Button } from '../components/Button.js';
import { Icon } from '../components/Icon.js';
import { describeError } from '../components/States.js';
import { toast } from '../components/Toasts.js';
import { useDashboard } from './DashboardContext.js';

export function AppUrlsPanel({
  project,
  onChange,
}: {
  project: Project;
  onChange: (appUrls: string[]) => void;
}) {
  const { api } = useDashboard();
  const [url, setUrl] = useState('');
  const [busy, setBusy] = useState<string>();
  const [error, setError] = useState<string>();

  const add = async (event: FormEvent) => {
    event.preventDefault();
    setBusy('add');
    setError(undefined);
    try {
      const result = await api.addAppUrl(project.projectId, url.trim());
      onChange(result.appUrls);
      setUrl('');
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(undefined);
    }
  };

  const remove = async (appUrl: string) => {
    setBusy(appUrl);
    try {
      const result = await api.removeAppUrl(project.projectId, appUrl);
      onChange(result.appUrls);
      toast('App URL removed');
    } catch (e) {
      toast(describeError(e), { error: true });
    } finally {
      setBusy(undefined);
    }
  };

  return (
    <section className="card">
      <div className="card-header">
        <h3>App URLs</h3>
        <span className="badge">{project.appUrls.length}</span>
      </div>
      {project.appUrls.length === 0 ? (
        <p className="card-body muted small">
          No app URL yet. Register the URL your mini app is served from.
        </p>
      ) : (
        <ul className="list">
          {project.appUrls.map((appUrl) => (
            <li key={appUrl} className="list-item">
              <span className="grow mono small truncate" title={appUrl}>
                {appUrl}
              </span>
              <Button
                size="sm"
                variant="ghost"
                onClick={() => remove(appUrl)}
                busy={busy === appUrl}
                aria-label={`Remove ${appUrl}`}
              >
                <Icon name="x" size={14} />
              </Button>
            </li>
          ))}
        </ul>
      )}
      <form className="card-footer" onSubmit={add}>
        <div className="grow stack" style={{ gap: 4 }}>
          <input
            className={error ? 'input mono invalid' : 'input mono'}
            placeholder="https://app.example"
            aria-label="New app URL"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
          />
          {error ? <span className="field-error">{error}</span> : null}
        </div>
        <Button type="submit" busy={busy === 'add'} disabled={url.trim() === ''}>
          Add
        </Button>
      </form>
    </section>
  );
}
