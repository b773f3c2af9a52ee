/** Projects: the developer's own (or, for the operator, all), and a form to create one. */
import { type FormEvent, useState } from 'react';
import { WharfApiError } from '@wharf/sdk';
import { Button } from '../components/Button.js';
import { Field } from '../components/Field.js';
import { Icon } from '../components/Icon.js';
import { KeyReveal } from '../components/KeyReveal.js';
import { Link } from '../components/Link.js';
import { EmptyState, ErrorAlert, Loading } from '../components/States.js';
import { rememberKey } from '../dashboard/keyVault.js';
import { useAsync } from '../hooks/useAsync.js';
import { navigate } from '../router/navigation.js';
import { relativeTime } from '../text/relativeTime.js';
import { useDashboard } from '../dashboard/DashboardContext.js';

export function ProjectsScreen() {
  const { api, isOperator } = useDashboard();
  const projects = useAsync(() => api.projects(), [api]);
  const [creating, setCreating] = useState(false);
  const list = projects.data ?? [];

  return (
    <main className="page">
      <div className="page-header">
        <div>
          <h1>Projects</h1>
          <p>
            {isOperator
              ? 'Every project on this platform. Whitelist a project to let it send notifications.'
              : 'A project holds your app URLs and the API key for the notifications API.'}
          </p>
        </div>
        {!creating ? (
          <Button variant="primary" onClick={() => setCreating(true)}>
            <Icon name="plus" size={16} /> New project
          </Button>
        ) : null}
      </div>
      {creating ? <CreateProject onDone={() => setCreating(false)} /> : null}
      {projects.error instanceof WharfApiError && projects.error.status === 404 && !isOperator ? (
        <div className="alert alert-warning">
          <div className="grow">
            <strong>This server has no developer dashboard API yet.</strong>
            <p>
              Developers' own projects need <code>/api/v1/dashboard</code>. Meanwhile the operator (admin
              token) can create projects, and <code>wharf project create</code> does the same from a terminal.
            </p>
          </div>
        </div>
      ) : projects.error ? (
        <ErrorAlert error={projects.error} onRetry={projects.reload} />
      ) : null}
      {projects.loading && !projects.data ? <Loading /> : null}
      {projects.data && list.length === 0 && !creating ? (
        <div className="card">
          <EmptyState
            icon="folder"
            title="No projects yet"
            action={
              <Button variant="primary" onClick={() => setCreating(true)}>
                Create your first project
              </Button>
            }
          >
            Create a project, register your app's URL and generate an API key to send notifications.
          </EmptyState>
        </div>
      ) : null}
      {list.length > 0 ? (
        <div className="card table-wrap">
          <table className="table" aria-label="Projects">
            <thead>
              <tr>
                <th>Name</th>
                <th className="hide-sm">App URLs</th>
                <th>Notifications</th>
                <th className="hide-sm">Created</th>
              </tr>
            </thead>
            <tbody>
              {list.map((p) => (
                <tr
                  key={p.projectId}
                  className="clickable"
                  onClick={() => navigate(`/dashboard/projects/${p.projectId}`)}
                >
                  <td>
                    <Link href={`/dashboard/projects/${p.projectId}`} className="strong">
                      {p.name}
                    </Link>
                    <div className="muted xs mono">{p.projectId}</div>
                  </td>
                  <td className="truncate hide-sm" style={{ maxWidth: 280 }}>
                    {p.appUrls.length === 0 ? <span className="muted">none</span> : p.appUrls.join(', ')}
                  </td>
                  <td>
                    {p.whitelisted ? (
                      <span className="badge badge-success">Whitelisted</span>
                    ) : (
                      <span className="badge badge-warning">Not whitelisted</span>
                    )}
                  </td>
                  <td className="muted hide-sm">{relativeTime(p.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </main>
  );
}

function CreateProject({ onDone }: { onDone: () => void }) {
  const { api, isOperator } = useDashboard();
  const [owner, setOwner] = useState('');
  const [name, setName] = useState('');
  const [appUrl, setAppUrl] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [created, setCreated] = useState<{ projectId: string; apiKey: string }>();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const project = await api.createProject({
        name: name.trim(),
        appUrl: appUrl.trim(),
        owner: owner.trim() || undefined,
      });
      rememberKey(project.projectId, project.apiKey);
      setCreated({ projectId: project.projectId, apiKey: project.apiKey });
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="card" onSubmit={submit} style={{ marginBottom: 24 }}>
      <div className="card-header">
        <h3>New project</h3>
      </div>
      <div className="card-body form-grid">
        <Field label="Name" htmlFor="project-name">
          <input
            id="project-name"
            className="input"
            value={name}
            onChange={(e) => setName(e.target.value)}
            required
            maxLength={100}
            placeholder="My mini app"
          />
        </Field>
        <Field label="App URL" htmlFor="project-url" hint="https, or http on localhost">
          <input
            id="project-url"
            className="input mono"
            value={appUrl}
            onChange={(e) => setAppUrl(e.target.value)}
            placeholder="https://app.example"
          />
        </Field>
        {isOperator ? (
          <Field label="Owner (optional)" htmlFor="project-owner" hint="The developer's wallet address">
            <input
              id="project-owner"
              className="input mono"
              value={owner}
              onChange={(e) => setOwner(e.target.value)}
              placeholder="0x…"
              spellCheck={false}
            />
          </Field>
        ) : null}
      </div>
      {error ? (
        <div className="card-body" style={{ paddingTop: 0 }}>
          <ErrorAlert error={error} />
        </div>
      ) : null}
      <div className="card-footer">
        <Button onClick={onDone} disabled={busy}>
          Cancel
        </Button>
        <Button
          type="submit"
          variant="primary"
          busy={busy}
          disabled={name.trim() === '' || appUrl.trim() === ''}
        >
          Create project
        </Button>
      </div>
      {created ? (
        <KeyReveal
          apiKey={created.apiKey}
          onClose={() => navigate(`/dashboard/projects/${created.projectId}`)}
        />
      ) : null}
    </form>
  );
}
