/** The inbox: notifications from pinned apps, live; tapping one opens its app at its target path. */
import type { PlatformNotification } from '@wharf/sdk';
import { useEffect, useState } from 'react';
import { AppIcon, appHost } from '../components/AppIcon.js';
import { Button } from '../components/Button.js';
import { EmptyState, ErrorAlert, Loading } from '../components/States.js';
import { Link } from '../components/Link.js';
import { useAsync } from '../hooks/useAsync.js';
import { useInbox } from '../inbox/InboxContext.js';
import { usePlatform } from '../platform/PlatformContext.js';
import { navigate } from '../router/navigation.js';
import { notificationTarget } from '../router/notificationTarget.js';
import { routePath } from '../router/routes.js';
import { relativeTime } from '../text/relativeTime.js';

const streamLabel = { connecting: 'Connecting…', live: 'Live', retrying: 'Reconnecting…', closed: 'Offline' };

export function InboxScreen() {
  const inbox = useInbox();
  const [filter, setFilter] = useState<'all' | 'unread'>('all');
  const [loadingMore, setLoadingMore] = useState(false);
  // Re-render every 30 s so "just now" ages.
  const [, setNow] = useState(0);
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(t);
  }, []);
  const items = filter === 'unread' ? inbox.items.filter((n) => !n.readAt) : inbox.items;
  // Each notification shows its app as the developer named it (the catalog: project name, icon).
  const { api } = usePlatform();
  const catalog = useAsync(() => api.catalog(), [api]);
  const apps = new Map((catalog.data ?? []).map((a) => [a.appUrl, a]));

  const open = (n: PlatformNotification) => {
    if (!n.readAt) void inbox.markRead([n.id]).catch(() => undefined);
    navigate(
      routePath({ area: 'platform', screen: 'open', url: notificationTarget(n.appUrl, n.targetPath) }),
    );
  };

  return (
    <main className="page page-narrow">
      <div className="page-header">
        <div>
          <h1>Inbox</h1>
          <p className="row small">
            <span className={inbox.stream === 'live' ? 'dot live' : 'dot warn'} />
            <span data-testid="stream-state">{streamLabel[inbox.stream]}</span>
            {inbox.unread > 0 ? <span className="muted">· {inbox.unread} unread</span> : null}
          </p>
        </div>
        <div className="row">
          <fieldset className="segmented">
            <legend className="visually-hidden">Filter</legend>
            <button type="button" aria-pressed={filter === 'all'} onClick={() => setFilter('all')}>
              All
            </button>
            <button type="button" aria-pressed={filter === 'unread'} onClick={() => setFilter('unread')}>
              Unread
            </button>
          </fieldset>
          <Button size="sm" onClick={() => void inbox.markAllRead()} disabled={inbox.unread === 0}>
            Mark all read
          </Button>
        </div>
      </div>
      {inbox.error ? <ErrorAlert error={inbox.error} onRetry={inbox.reload} /> : null}
      {inbox.loading && inbox.items.length === 0 ? <Loading /> : null}
      {!inbox.loading && items.length === 0 && !inbox.error ? (
        <div className="card">
          <EmptyState
            icon="bell"
            title={filter === 'unread' ? 'All caught up' : 'No notifications yet'}
            action={
              filter === 'all' ? (
                <Link className="btn" href="/discover">
                  Find apps to pin
                </Link>
              ) : undefined
            }
          >
            {filter === 'unread'
              ? 'You have read everything.'
              : 'Apps you pin with notifications on can send you updates; they show up here instantly.'}
          </EmptyState>
        </div>
      ) : null}
      {items.length > 0 ? (
        <ul className="card list" aria-label="Notifications">
          {items.map((n) => (
            <li key={n.id}>
              <button
                type="button"
                className={n.readAt ? 'notification' : 'notification unread'}
                onClick={() => open(n)}
                data-testid="notification"
              >
                <AppIcon
                  appUrl={n.appUrl}
                  name={apps.get(n.appUrl)?.name}
                  iconUrl={apps.get(n.appUrl)?.iconUrl}
                />
                <div className="grow">
                  <div className="notification-head">
                    <span className="notification-title">{n.title}</span>
                    <time className="muted xs" dateTime={n.createdAt}>
                      {relativeTime(n.createdAt)}
                    </time>
                  </div>
                  <p className="notification-message">{n.message}</p>
                  <span className="muted xs" data-testid="notification-app">
                    {apps.get(n.appUrl)?.name ?? appHost(n.appUrl)}
                  </span>
                </div>
                {n.readAt ? null : (
                  <span className="unread-dot">
                    <span className="visually-hidden">unread</span>
                  </span>
                )}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      {inbox.hasMore && filter === 'all' ? (
        <div className="row" style={{ justifyContent: 'center', marginTop: 16 }}>
          <Button
            busy={loadingMore}
            onClick={async () => {
              setLoadingMore(true);
              await inbox.loadMore().finally(() => setLoadingMore(false));
            }}
          >
            Load older
          </Button>
        </div>
      ) : null}
    </main>
  );
}
