/**
 * The project's API key: generate (or rotate: the old key stops at once), revoke, and paste a
 * saved key back so that this page can call the notifications API with it.
 */
import { type FormEvent, useState } from 'react';
import type { Project } from '@wharf/sdk';
import { Button } from '../components/Button.js';
import { Dialog } from '../components/Dialog.js';
import { Icon } from '../components/Icon.js';
import { KeyReveal } from '../components/KeyReveal.js';
import { describeError } from '../components/States.js';
import { toast } from '../components/Toasts.js';
import { useDashboard } from './DashboardContext.js';
import { rememberKey, useProjectKey } from './keyVault.js';

export function ApiKeyPanel({
  project,
  onChange,
}: {
  project: Project;
  onChange: (hasKey: boolean) => void;
}) {
  const { api, isOperator } = useDashboard();
  const key = useProjectKey(project.projectId);
  const [revealed, setRevealed] = useState<string>();
  const [busy, setBusy] = useState<'generate' | 'revoke'>();
  const [confirm, setConfirm] = useState<'rotate' | 'revoke'>();
  const [pasted, setPasted] = useState('');
  const hasKey = project.hasKey ?? true;

  const generate = async () => {
    setConfirm(undefined);
    setBusy('generate');
    try {
      const issued = await api.rotateKey(project.projectId);
      rememberKey(project.projectId, issued.apiKey);
      setRevealed(issued.apiKey);
      onChange(true);
    } catch (e) {
      toast(describeError(e), { error: true });
    } finally {
      setBusy(undefined);
    }
  };

  const revoke = async () => {
    setConfirm(undefined);
    setBusy('revoke');
    try {
      await api.revokeKey(project.projectId);
      rememberKey(project.projectId, null);
      onChange(false);
      toast('Key revoked');
    } catch (e) {
      toast(describeError(e), { error: true });
    } finally {
      setBusy(undefined);
    }
  };

  const usePasted = (event: FormEvent) => {
    event.preventDefault();
    rememberKey(project.projectId, pasted.trim());
    setPasted('');
    toast('Key in use on this page');
  };

  return (
    <section className="card">
      <div className="card-header">
        <h3>API key</h3>
        {hasKey ? <span className="badge badge-success">Active</span> : <span className="badge">No key</span>}
      </div>
      <div className="card-body stack">
        <p className="muted small">
          Sent as <code>x-api-key</code>. Only its hash is stored: a key is shown once, when it is generated.
        </p>
        {!isOperator ? (
          <p className="muted small">The panels below use your dashboard session; scripts use the key.</p>
        ) : key ? (
          <div className="secret">
            <code>{`${key.slice(0, 10)}${'•'.repeat(12)}`}</code>
            <Button size="sm" onClick={() => rememberKey(project.projectId, null)}>
              Forget
            </Button>
          </div>
        ) : (
          <form className="row" onSubmit={usePasted}>
            <input
              className="input mono grow"
              type="password"
              placeholder="Paste a saved key to use it here"
              aria-label="Saved API key"
              value={pasted}
              onChange={(e) => setPasted(e.target.value)}
            />
            <Button type="submit" disabled={pasted.trim() === ''}>
              Use
            </Button>
          </form>
        )}
      </div>
      <div className="card-footer">
        <Button
          variant="danger"
          onClick={() => setConfirm('revoke')}
          busy={busy === 'revoke'}
          disabled={!hasKey}
        >
          Revoke
        </Button>
        <Button
          variant="primary"
          onClick={() => (hasKey ? setConfirm('rotate') : generate())}
          busy={busy === 'generate'}
        >
          <Icon name="key" size={15} /> {hasKey ? 'Generate new key' : 'Generate key'}
        </Button>
      </div>
      {confirm ? (
        <Dialog
          title={confirm === 'rotate' ? 'Replace the current key?' : 'Revoke the key?'}
          onCancel={() => setConfirm(undefined)}
          actions={
            <>
              <Button onClick={() => setConfirm(undefined)} data-autofocus>
                Cancel
              </Button>
              <Button
                variant={confirm === 'revoke' ? 'danger' : 'primary'}
                onClick={confirm === 'rotate' ? generate : revoke}
              >
                {confirm === 'rotate' ? 'Generate new key' : 'Revoke'}
              </Button>
            </>
          }
        >
          <p>
            {confirm === 'rotate'
              ? 'The current key stops working at once; scripts that use it must switch to the new one.'
              : 'Calls with the current key will fail until you generate a new one.'}
          </p>
        </Dialog>
      ) : null}
      {revealed ? <KeyReveal apiKey={revealed} onClose={() => setRevealed(undefined)} /> : null}
    </section>
  );
}
