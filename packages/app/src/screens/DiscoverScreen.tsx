/** Discover: the registered apps (the catalog); pinning asks whether to allow notifications. */
import type { CatalogApp } from '@wharf/sdk';
import { useState } from 'react';
import { AppIcon, appHost } from '../components/AppIcon.js';
import { Button } from '../components/Button.js';
import { Dialog } from '../components/Dialog.js';
import { Icon } from '../components/Icon.js';
import { EmptyState, ErrorAlert, Loading, describeError } from '../components/States.js';
import { Switch } from '../components/Switch.js';
import { toast } from '../components/Toasts.js';
import { useAsync } from '../hooks/useAsync.js';
import { usePlatform } from '../platform/PlatformContext.js';

export function DiscoverScreen() {
  const { api } = usePlatform();
  const catalog = useAsync(() => api.catalog(), [api]);
  const pinned = useAsync(() => api.apps(), [api]);
  const [query, setQuery] = useState('');
  const [pinning, setPinning] = useState<CatalogApp>();
  const pinnedUrls = new Set((pinned.data ?? []).map((a) => a.appUrl));
  const q = query.trim().toLowerCase();
  const apps = (catalog.data ?? []).filter(
    (a) => q === '' || a.name.toLowerCase().includes(q) || a.appUrl.toLowerCase().includes(q),
  );

  return (
    <main className="page">
      <div className="page-header">
        <div>
          <h1>Discover</h1>
          <p>Mini apps registered on this platform.</p>
        </div>
        <input
          className="input search"
          type="search"
          placeholder="Search apps"
          aria-label="Search apps"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
        />
      </div>
      {catalog.error ? <ErrorAlert error={catalog.error} onRetry={catalog.reload} /> : null}
      {catalog.loading && !catalog.data ? <Loading /> : null}
      {catalog.data && apps.length === 0 ? (
        <div className="card">
          <EmptyState icon="compass" title={q ? 'No app matches' : 'No apps registered yet'}>
            {q
              ? 'Try another name or address.'
              : 'Developers register app URLs in their projects on the dashboard; they appear here.'}
          </EmptyState>
        </div>
      ) : null}
      <ul className="grid list" aria-label="Apps">
        {apps.map((app) => {
          const isPinned = pinnedUrls.has(app.appUrl);
          return (
            <li key={app.appUrl} className="card" data-testid="catalog-app">
              <div className="card-body row">
                <AppIcon appUrl={app.appUrl} name={app.name} iconUrl={app.iconUrl} large />
                <div className="grow">
                  <div className="list-item-title">{app.name || appHost(app.appUrl)}</div>
                  <div className="list-item-sub">{app.appUrl}</div>
                </div>
                {isPinned ? (
                  <span className="badge badge-success">
                    <Icon name="check" size={12} /> Pinned
                  </span>
                ) : (
                  <Button size="sm" variant="primary" onClick={() => setPinning(app)}>
                    <Icon name="pin" size={14} /> Pin
                  </Button>
                )}
              </div>
            </li>
          );
        })}
      </ul>
      {pinning ? (
        <PinDialog
          app={pinning}
          onClose={(didPin) => {
            setPinning(undefined);
            if (didPin) pinned.reload();
          }}
        />
      ) : null}
    </main>
  );
}

function PinDialog({ app, onClose }: { app: CatalogApp; onClose: (didPin: boolean) => void }) {
  const { api } = usePlatform();
  const [notifications, setNotifications] = useState(true);
  const [busy, setBusy] = useState(false);
  const pin = async () => {
    setBusy(true);
    try {
      await api.pin(app.appUrl, { notificationsEnabled: notifications });
      toast(`Pinned ${app.name || appHost(app.appUrl)}`);
      onClose(true);
    } catch (e) {
      toast(describeError(e), { error: true });
      setBusy(false);
    }
  };
  return (
    <Dialog
      title={`Pin ${app.name || appHost(app.appUrl)}?`}
      onCancel={() => onClose(false)}
      actions={
        <>
          <Button onClick={() => onClose(false)} disabled={busy}>
            Cancel
          </Button>
          <Button variant="primary" onClick={pin} busy={busy} data-autofocus>
            Pin app
          </Button>
        </>
      }
    >
      <div className="row">
        <AppIcon appUrl={app.appUrl} name={app.name} iconUrl={app.iconUrl} large />
        <div className="grow">
          <div className="list-item-title">{app.name}</div>
          <div className="list-item-sub">{app.appUrl}</div>
        </div>
      </div>
      <p className="muted small">The app will appear in My apps. You can change this at any time.</p>
      <div className="card card-body">
        <Switch
          checked={notifications}
          onChange={setNotifications}
          label="Allow notifications from this app"
        />
      </div>
    </Dialog>
  );
}
