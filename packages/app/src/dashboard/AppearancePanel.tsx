/** How the platform app shows the project's apps (inbox, catalog, my apps): its name and icon. */
import { type FormEvent, useState } from 'react';
import type { Project } from '@wharf/sdk';
import { AppIcon } from '../components/AppIcon.js';
import { Button } from '../components/Button.js';
import { describeError } from '../components/States.js';
import { toast } from '../components/Toasts.js';
import { useDashboard } from './DashboardContext.js';

export function AppearancePanel({ project, onChange }: { project: Project; onChange: (p: Project) => void }) {
  const { api } = useDashboard();
  const [name, setName] = useState(project.name);
  const [iconUrl, setIconUrl] = useState(project.iconUrl ?? '');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const save = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      onChange(
        await api.updateProject(project.projectId, { name: name.trim(), iconUrl: iconUrl.trim() || null }),
      );
      toast('Saved: the platform app shows it from now on');
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="card">
      <div className="card-header">
        <h3>In the platform app</h3>
      </div>
      <form className="card-body stack" onSubmit={save}>
        <div className="row">
          <AppIcon appUrl={project.appUrls[0] ?? 'https://app'} name={name} iconUrl={project.iconUrl} large />
          <p className="muted small grow">
            Users see this name and icon with your notifications and in the catalog.
          </p>
        </div>
        <input
          className="input"
          aria-label="App name"
          value={name}
          onChange={(e) => setName(e.target.value)}
        />
        <input
          className={error ? 'input mono invalid' : 'input mono'}
          aria-label="Icon URL"
          placeholder="https://app.example/icon.png"
          value={iconUrl}
          onChange={(e) => setIconUrl(e.target.value)}
        />
        {error ? <span className="field-error">{error}</span> : null}
        <div className="row">
          <Button type="submit" busy={busy} disabled={name.trim() === ''}>
            Save
          </Button>
        </div>
      </form>
    </section>
  );
}
