/** One project: whitelist state, app URLs, the API key, users, one wallet's status, test sends, the send log. */
import { useState } from 'react';
import type { Project } from '@wharf/sdk';
import { Address } from '../components/Address.js';
import { Button } from '../components/Button.js';
import { Dialog } from '../components/Dialog.js';
import { Icon } from '../components/Icon.js';
import { Link } from '../components/Link.js';
import { ErrorAlert, Loading, describeError } from '../components/States.js';
import { Switch } from '../components/Switch.js';
import { toast } from '../components/Toasts.js';
import { AppearancePanel } from '../dashboard/AppearancePanel.js';
import { ApiKeyPanel } from '../dashboard/ApiKeyPanel.js';
import { AppUrlsPanel } from '../dashboard/AppUrlsPanel.js';
import { rememberKey } from '../dashboard/keyVault.js';
import { SendLogPanel } from '../dashboard/SendLogPanel.js';
import { StatusPanel } from '../dashboard/StatusPanel.js';
import { TestSendPanel } from '../dashboard/TestSendPanel.js';
import { UsersPanel } from '../dashboard/UsersPanel.js';
import { WebhookPanel } from '../dashboard/WebhookPanel.js';
import { useAsync } from '../hooks/useAsync.js';
import { navigate } from '../router/navigation.js';
import { useDashboard } from '../dashboard/DashboardContext.js';

export function ProjectScreen({ projectId }: { projectId: string }) {
  const { api } = useDashboard();
  const project = useAsync(() => api.project(projectId), [api, projectId]);
  const p = project.data;
  const update = (next: Partial<Project>) => project.setData((d) => (d ? { ...d, ...next } : d));

  return (
    <main className="page">
      <Link href="/dashboard" className="back-link">
        <Icon name="back" size={16} /> Projects
      </Link>
      {project.error ? <ErrorAlert error={project.error} onRetry={project.reload} /> : null}
      {project.loading && !p ? <Loading /> : null}
      {p ? (
        <>
          <div className="page-header">
            <div className="grow">
              <h1>{p.name}</h1>
              <p className="row row-wrap small">
                <span className="mono">{p.projectId}</span>
                {p.owner ? (
                  <span>
                    · owner <Address address={p.owner} />
                  </span>
                ) : null}
              </p>
            </div>
            <WhitelistControl project={p} onChange={(whitelisted) => update({ whitelisted })} />
          </div>
          {!p.whitelisted ? (
            <div className="alert alert-warning" style={{ marginBottom: 16 }}>
              <Icon name="shield" />
              <div className="grow">
                <strong>Not whitelisted for notifications.</strong>
                <p>
                  Until the operator whitelists this project, its sends (and the users and status calls)
                  answer <code>403 Forbidden</code>.
                </p>
              </div>
            </div>
          ) : null}
          <div className="project-grid">
            <AppUrlsPanel project={p} onChange={(appUrls) => update({ appUrls })} />
            <ApiKeyPanel project={p} onChange={(hasKey) => update({ hasKey })} />
          </div>
          <AppearancePanel project={p} onChange={(next) => update(next)} />
          <TestSendPanel project={p} />
          <SendLogPanel project={p} />
          <div className="project-grid">
            <UsersPanel project={p} />
            <StatusPanel project={p} />
          </div>
          <WebhookPanel project={p} />
          <DangerZone project={p} />
        </>
      ) : null}
    </main>
  );
}

function WhitelistControl({ project, onChange }: { project: Project; onChange: (w: boolean) => void }) {
  const { api, isOperator } = useDashboard();
  const [busy, setBusy] = useState(false);
  if (!isOperator)
    return project.whitelisted ? (
      <span className="badge badge-success">Whitelisted</span>
    ) : (
      <span className="badge badge-warning">Not whitelisted</span>
    );
  const set = async (whitelisted: boolean) => {
    setBusy(true);
    try {
      await api.setWhitelisted(project.projectId, whitelisted);
      onChange(whitelisted);
      toast(whitelisted ? 'Whitelisted' : 'Removed from the whitelist');
    } catch (e) {
      toast(describeError(e), { error: true });
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="card card-body">
      <Switch
        checked={project.whitelisted}
        onChange={set}
        disabled={busy}
        label="Whitelisted for notifications"
      />
    </div>
  );
}

function DangerZone({ project }: { project: Project }) {
  const { api } = useDashboard();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const remove = async () => {
    setBusy(true);
    try {
      await api.deleteProject(project.projectId);
      rememberKey(project.projectId, null);
      toast(`Deleted ${project.name}`);
      navigate('/dashboard');
    } catch (e) {
      toast(describeError(e), { error: true });
      setBusy(false);
    }
  };
  return (
    <section className="card danger-zone section">
      <div className="card-body row row-wrap">
        <div className="grow">
          <h3>Delete this project</h3>
          <p className="muted small">Its API keys answer 404 from that moment on. This cannot be undone.</p>
        </div>
        <Button variant="danger" onClick={() => setConfirming(true)}>
          <Icon name="trash" size={15} /> Delete project
        </Button>
      </div>
      {confirming ? (
        <Dialog
          title={`Delete ${project.name}?`}
          onCancel={() => setConfirming(false)}
          actions={
            <>
              <Button onClick={() => setConfirming(false)} data-autofocus>
                Cancel
              </Button>
              <Button variant="danger" onClick={remove} busy={busy}>
                Delete
              </Button>
            </>
          }
        >
          <p>
            The project, its app URLs and its keys are removed. Users' pins of its apps stop receiving
            notifications.
          </p>
        </Dialog>
      ) : null}
    </section>
  );
}
