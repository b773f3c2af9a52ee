/** My apps: the pinned apps, each with its notifications switch, open and unpin. */
import type { CatalogApp, PinnedApp } from '@wharf/sdk';
import { useState } from 'react';
import { AppIcon, appHost } from '../components/AppIcon.js';
import { Button } from '../components/Button.js';
import { Icon } from '../components/Icon.js';
import { Link } from '../components/Link.js';
import { EmptyState, ErrorAlert, Loading, describeError } from '../components/States.js';
import { Switch } from '../components/Switch.js';
import { toast } from '../components/Toasts.js';
import { useAsync } from '../hooks/useAsync.js';
import { navigate } from '../router/navigation.js';
import { routePath } from '../router/routes.js';
import { usePlatform } from '../platform/PlatformContext.js';

export function AppsScreen() {
  const { api } = usePlatform();
  const pinned = useAsync(() => api.apps(), [api]);
  const catalog = useAsync(() => api.catalog(), [api]);
  const names = new Map((catalog.data ?? []).map((a: CatalogApp) => [a.appUrl, a.name]));
  const icons = new Map((catalog.data ?? []).map((a: CatalogApp) => [a.appUrl, a.iconUrl]));
  const apps = pinned.data ?? [];

  return (
    <main className="page">
      <div className="page-header">
        <div>
          <h1>My apps</h1>
          <p>Apps you pinned. Those with notifications on can reach your inbox.</p>
        </div>
        <Link className="btn" href="/discover">
          <Icon name="compass" size={16} /> Discover apps
        </Link>
      </div>
      {pinned.error ? <ErrorAlert error={pinned.error} onRetry={pinned.reload} /> : null}
      {pinned.loading && !pinned.data ? <Loading /> : null}
      {pinned.data && apps.length === 0 ? (
        <div className="card">
          <EmptyState
            icon="pin"
            title="No pinned apps yet"
            action={
              <Link className="btn btn-primary" href="/discover">
                Browse apps
              </Link>
            }
          >
            Pin an app to keep it here and let it send you notifications.
          </EmptyState>
        </div>
      ) : null}
      {apps.length > 0 ? (
        <ul className="grid list" aria-label="Pinned apps">
          {apps.map((app) => (
            <PinnedCard
              key={app.appUrl}
              app={app}
              name={names.get(app.appUrl)}
              iconUrl={icons.get(app.appUrl)}
              onChange={(next) =>
                pinned.setData((d) =>
                  d
                    ? next
                      ? d.map((a) => (a.appUrl === app.appUrl ? next : a))
                      : d.filter((a) => a.appUrl !== app.appUrl)
                    : d,
                )
              }
            />
          ))}
        </ul>
      ) : null}
    </main>
  );
}

function PinnedCard({
  app,
  name,
  iconUrl,
  onChange,
}: {
  app: PinnedApp;
  name?: string;
  iconUrl?: string | null;
  onChange: (next: PinnedApp | null) => void;
}) {
  const { api } = usePlatform();
  const [busy, setBusy] = useState(false);
  const title = name ?? appHost(app.appUrl);

  const toggle = async (enabled: boolean) => {
    setBusy(true);
    onChange({ ...app, notificationsEnabled: enabled });
    try {
      await api.setNotifications(app.appUrl, enabled);
      toast(enabled ? `Notifications on for ${title}` : `Notifications off for ${title}`);
    } catch (e) {
      onChange(app);
      toast(describeError(e), { error: true });
    } finally {
      setBusy(false);
    }
  };

  const unpin = async () => {
    setBusy(true);
    try {
      await api.unpin(app.appUrl);
      onChange(null);
      toast(`Unpinned ${title}`);
    } catch (e) {
      toast(describeError(e), { error: true });
      setBusy(false);
    }
  };

  return (
    <li className="card app-card" data-testid="pinned-app">
      <div className="card-body row">
        <AppIcon appUrl={app.appUrl} name={name} iconUrl={iconUrl} large />
        <div className="grow">
          <div className="list-item-title">{title}</div>
          <div className="list-item-sub">{appHost(app.appUrl)}</div>
        </div>
      </div>
      <div className="card-footer app-card-footer">
        <Switch checked={app.notificationsEnabled} onChange={toggle} disabled={busy} label="Notifications" />
        <div className="grow" />
        <Button size="sm" variant="ghost" onClick={unpin} disabled={busy}>
          Unpin
        </Button>
        <Button
          size="sm"
          variant="primary"
          onClick={() => navigate(routePath({ area: 'platform', screen: 'open', url: `${app.appUrl}/` }))}
        >
          Open
        </Button>
      </div>
    </li>
  );
}
