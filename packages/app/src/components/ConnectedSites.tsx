/** Sites (mini-app origins) that the person let see their address. */
import type { Wallet } from '@wharf/wallet';
import { useAsync } from '../hooks/useAsync.js';
import { ErrorAlert } from './States.js';

export function ConnectedSites({ wallet }: { wallet: Wallet }) {
  const sites = useAsync(() => wallet.connectedOrigins(), [wallet]);
  const list = (sites.data ?? []).filter((o) => o !== location.origin);
  return (
    <section className="card">
      <div className="card-header">
        <h3>Connected sites</h3>
        <span className="badge">{list.length}</span>
      </div>
      {sites.error ? <ErrorAlert error={sites.error} /> : null}
      {sites.data && list.length === 0 ? (
        <p className="card-body muted small">No mini app has asked for your address yet.</p>
      ) : (
        <ul className="list">
          {list.map((origin) => (
            <li key={origin} className="list-item">
              <span className="dot live" />
              <span className="mono small truncate">{origin}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
