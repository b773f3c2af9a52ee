/** One wallet's status for an app (POST app/user/status), for targeted prompts. */
import { type FormEvent, useState } from 'react';
import type { Project } from '@wharf/sdk';
import { Button } from '../components/Button.js';
import { ErrorAlert } from '../components/States.js';
import { useNotificationsApi } from './useNotificationsApi.js';
import { NeedKey } from './NeedKey.js';

export function StatusPanel({ project }: { project: Project }) {
  const api = useNotificationsApi(project.projectId);
  const [appUrl, setAppUrl] = useState(project.appUrls[0] ?? '');
  const [address, setAddress] = useState('');
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<{ appPinned: boolean; notificationsEnabled: boolean }>();
  const [error, setError] = useState<unknown>();

  const check = async (event: FormEvent) => {
    event.preventDefault();
    if (!api) return;
    setBusy(true);
    setError(undefined);
    setStatus(undefined);
    try {
      setStatus(await api.userStatus({ appUrl, walletAddress: address.trim() }));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  const state = !status
    ? undefined
    : !status.appPinned
      ? { label: 'Not pinned', cls: 'badge' }
      : status.notificationsEnabled
        ? { label: 'Pinned, notifications on', cls: 'badge badge-success' }
        : { label: 'Pinned, notifications off', cls: 'badge badge-warning' };

  return (
    <form className="card section" onSubmit={check}>
      <div className="card-header">
        <h3>Wallet status</h3>
      </div>
      <div className="card-body stack">
        {!api ? <NeedKey /> : null}
        <select
          className="select"
          aria-label="App URL"
          value={appUrl}
          onChange={(e) => setAppUrl(e.target.value)}
        >
          {project.appUrls.map((u) => (
            <option key={u}>{u}</option>
          ))}
        </select>
        <div className="row">
          <input
            className="input mono grow"
            placeholder="0x… wallet address"
            aria-label="Wallet address"
            value={address}
            onChange={(e) => setAddress(e.target.value)}
            spellCheck={false}
          />
          <Button type="submit" busy={busy} disabled={!api || !appUrl || address.trim() === ''}>
            Check
          </Button>
        </div>
        {error ? <ErrorAlert error={error} /> : null}
        {state ? (
          <div className="row" data-testid="wallet-status">
            <span className={state.cls}>{state.label}</span>
          </div>
        ) : null}
      </div>
    </form>
  );
}
