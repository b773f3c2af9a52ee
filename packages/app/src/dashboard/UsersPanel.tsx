/** Who pinned an app: the pages of GET app/users, with the enabled filter. */
import { useState } from 'react';
import type { Project } from '@wharf/sdk';
import { Address } from '../components/Address.js';
import { Button } from '../components/Button.js';
import { EmptyState, ErrorAlert, Loading } from '../components/States.js';
import { Switch } from '../components/Switch.js';
import { useAsync } from '../hooks/useAsync.js';
import { useNotificationsApi } from './useNotificationsApi.js';
import { NeedKey } from './NeedKey.js';

const PAGE = 20;

export function UsersPanel({ project }: { project: Project }) {
  const api = useNotificationsApi(project.projectId);
  const [appUrl, setAppUrl] = useState(project.appUrls[0] ?? '');
  const [enabledOnly, setEnabledOnly] = useState(false);
  // Cursors of the pages seen, so Previous works with a forward-only cursor.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const page = useAsync(
    async () =>
      api && appUrl
        ? api.listUsers({
            appUrl,
            cursor,
            limit: PAGE,
            ...(enabledOnly ? { notificationEnabled: true } : {}),
          })
        : undefined,
    // Whitelisting changes the answer (403 before), so it reloads the page.
    [api, appUrl, enabledOnly, cursor, project.whitelisted],
  );
  const reset = () => setCursors([undefined]);

  return (
    <section className="card section">
      <div className="card-header">
        <h3>Users</h3>
        <Button size="sm" variant="ghost" onClick={page.reload} disabled={!api}>
          Refresh
        </Button>
      </div>
      <div className="card-body stack">
        {!api ? <NeedKey /> : null}
        <div className="row row-wrap">
          <select
            className="select grow"
            aria-label="App URL"
            value={appUrl}
            onChange={(e) => {
              setAppUrl(e.target.value);
              reset();
            }}
          >
            {project.appUrls.map((u) => (
              <option key={u}>{u}</option>
            ))}
          </select>
          <Switch
            checked={enabledOnly}
            onChange={(v) => {
              setEnabledOnly(v);
              reset();
            }}
            label="Notifications on only"
          />
        </div>
        {page.error ? <ErrorAlert error={page.error} onRetry={page.reload} /> : null}
        {page.loading && api ? <Loading /> : null}
        {page.data && page.data.users.length === 0 ? (
          <EmptyState icon="users" title="No users yet">
            People who pin this app in the platform app appear here.
          </EmptyState>
        ) : null}
        {page.data && page.data.users.length > 0 ? (
          <ul className="list bordered">
            {page.data.users.map((u) => (
              <li key={u.address} className="list-item">
                <span className="grow">
                  <Address address={u.address} />
                </span>
                {u.notificationsEnabled ? (
                  <span className="badge badge-success">Notifications on</span>
                ) : (
                  <span className="badge">Notifications off</span>
                )}
              </li>
            ))}
          </ul>
        ) : null}
      </div>
      {page.data && (cursors.length > 1 || page.data.nextCursor) ? (
        <div className="card-footer">
          <Button size="sm" onClick={() => setCursors((c) => c.slice(0, -1))} disabled={cursors.length === 1}>
            Previous
          </Button>
          <Button
            size="sm"
            onClick={() => setCursors((c) => [...c, page.data?.nextCursor])}
            disabled={!page.data.nextCursor}
          >
            Next
          </Button>
        </div>
      ) : null}
    </section>
  );
}
