/**
 * Sign in with Ethereum: pick one of the ten dev accounts of `wharf up` or import a private key.
 * Shared by the platform app and the dashboard (`realm`); the dashboard adds the operator form.
 */
import { type FormEvent, type ReactNode, useState } from 'react';
import type { HDAccount } from 'viem/accounts';
import { devAccounts } from '../auth/wharfUpAccounts.js';
import { type Realm, type Signer, setSession } from '../auth/session.js';
import { parsePrivateKey } from '../auth/signer.js';
import { signInWithEthereum } from '../auth/siwe.js';
import { Address } from '../components/Address.js';
import { Button } from '../components/Button.js';
import { Field } from '../components/Field.js';
import { Icon } from '../components/Icon.js';
import { ErrorAlert, Loading } from '../components/States.js';
import { useAsync } from '../hooks/useAsync.js';
import { chainConfig } from '../wallet/chainConfig.js';

export function SignInScreen({
  realm,
  title,
  subtitle,
  children,
}: {
  realm: Realm;
  title: string;
  subtitle: string;
  children?: ReactNode;
}) {
  const accounts = useAsync(() => devAccounts(), []);
  const [busy, setBusy] = useState<string>();
  const [error, setError] = useState<unknown>();
  const [keyText, setKeyText] = useState('');
  const [keyError, setKeyError] = useState<string>();
  const [showAll, setShowAll] = useState(false);
  const shown = showAll ? (accounts.data ?? []) : (accounts.data ?? []).slice(0, 4);

  const signIn = async (signer: Signer, id: string) => {
    setBusy(id);
    setError(undefined);
    try {
      const { chainId } = await chainConfig();
      setSession(realm, await signInWithEthereum(realm, signer, chainId));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(undefined);
    }
  };

  const importKey = (event: FormEvent) => {
    event.preventDefault();
    const privateKey = parsePrivateKey(keyText);
    if (!privateKey) {
      setKeyError('A private key is 64 hexadecimal digits, with or without 0x.');
      return;
    }
    setKeyError(undefined);
    void signIn({ kind: 'key', privateKey }, 'key');
  };

  return (
    <div className="signin">
      <div className="signin-head">
        <span className="brand-mark signin-mark">
          <Icon name="bolt" size={22} />
        </span>
        <h1>{title}</h1>
        <p className="muted">{subtitle}</p>
      </div>
      {error ? <ErrorAlert error={error} title="Sign-in failed" /> : null}
      <section className="card">
        <div className="card-header">
          <div>
            <h3>Dev accounts</h3>
            <p className="muted small">
              The funded accounts of <code>wharf up</code>. Signing proves you hold the key.
            </p>
          </div>
        </div>
        {accounts.loading && !accounts.data ? <Loading label="Deriving accounts…" /> : null}
        {accounts.error ? <ErrorAlert error={accounts.error} onRetry={accounts.reload} /> : null}
        <ul className="list" aria-label="Dev accounts">
          {shown.map((account: HDAccount, index) => (
            <li key={account.address} className="list-item">
              <span className="account-index">#{index}</span>
              <div className="grow">
                <div className="list-item-title">Account {index}</div>
                <div className="list-item-sub">
                  <Address address={account.address} />
                </div>
              </div>
              <Button
                size="sm"
                variant={index === 0 ? 'primary' : 'secondary'}
                busy={busy === `dev-${index}`}
                disabled={busy !== undefined}
                onClick={() => signIn({ kind: 'dev', index }, `dev-${index}`)}
                data-testid={`sign-in-dev-${index}`}
              >
                Sign in
              </Button>
            </li>
          ))}
        </ul>
        {!showAll && (accounts.data?.length ?? 0) > shown.length ? (
          <div className="card-footer" style={{ justifyContent: 'center' }}>
            <Button size="sm" variant="ghost" onClick={() => setShowAll(true)}>
              Show all {accounts.data?.length} accounts
            </Button>
          </div>
        ) : null}
      </section>
      <form className="card" onSubmit={importKey}>
        <div className="card-body stack">
          <h3>Import a private key</h3>
          <Field label="Private key" htmlFor={`${realm}-key`} error={keyError} hint="Kept in this tab only.">
            <input
              id={`${realm}-key`}
              className={keyError ? 'input invalid mono' : 'input mono'}
              type="password"
              autoComplete="off"
              spellCheck={false}
              placeholder="0x…"
              value={keyText}
              onChange={(e) => setKeyText(e.target.value)}
            />
          </Field>
          <div>
            <Button
              type="submit"
              busy={busy === 'key'}
              disabled={busy !== undefined || keyText.trim() === ''}
            >
              Sign in with this key
            </Button>
          </div>
        </div>
      </form>
      {children}
    </div>
  );
}
