/**
 * The developer dashboard at `/dashboard`: developers sign in with their wallet (SIWE), the
 * operator with the admin token that `wharf up` prints. Projects, keys, users, test sends, and
 * a live view of the chain.
 */
import { type FormEvent, useMemo, useState } from 'react';
import { createDashboardClient } from '@wharf/sdk';
import { type Session, setSession, useSession } from '../auth/session.js';
import { signOut } from '../auth/signOut.js';
import { signOutOn401 } from '../auth/signOutOn401.js';
import { Address } from '../components/Address.js';
import { Button } from '../components/Button.js';
import { Field } from '../components/Field.js';
import { Icon } from '../components/Icon.js';
import { Link } from '../components/Link.js';
import { ErrorAlert } from '../components/States.js';
import { DashboardContext } from '../dashboard/DashboardContext.js';
import type { Route } from '../router/routes.js';
import { ChainScreen } from './ChainScreen.js';
import { NotFoundScreen } from './NotFoundScreen.js';
import { ProjectScreen } from './ProjectScreen.js';
import { ProjectsScreen } from './ProjectsScreen.js';
import { SignInScreen } from './SignInScreen.js';

export function Dashboard({ route }: { route: Route }) {
  const session = useSession('dashboard');
  const value = useMemo(
    () =>
      session
        ? {
            session,
            api: signOutOn401(
              createDashboardClient({
                baseUrl: '',
                role: session.kind === 'operator' ? 'operator' : 'developer',
                token: session.token,
              }),
              () => setSession('dashboard', null),
            ),
            isOperator: session.kind === 'operator',
          }
        : undefined,
    [session],
  );
  if (!value)
    return (
      <div className="shell">
        <DashboardTopbar />
        <main className="page page-narrow">
          <SignInScreen
            realm="dashboard"
            title="Developer dashboard"
            subtitle="Projects, app URLs, API keys, test sends and a live view of the chain."
          >
            <OperatorSignIn />
          </SignInScreen>
        </main>
      </div>
    );
  return (
    <DashboardContext.Provider value={value}>
      <div className="shell">
        <DashboardTopbar session={value.session} />
        <div className="dash">
          <nav className="sidebar" aria-label="Dashboard">
            <Link
              href="/dashboard"
              className={
                route.screen === 'projects' || route.screen === 'project' ? 'navlink active' : 'navlink'
              }
            >
              <Icon name="folder" /> Projects
            </Link>
            <Link href="/dashboard/chain" className={route.screen === 'chain' ? 'navlink active' : 'navlink'}>
              <Icon name="blocks" /> Chain
            </Link>
            <a href="/api/docs" className="navlink" target="_blank" rel="noreferrer">
              <Icon name="external" /> API docs
            </a>
            <div className="grow" />
            <Link href="/" className="navlink">
              <Icon name="apps" /> Platform app
            </Link>
          </nav>
          <div className="dash-main">
            {route.screen === 'projects' ? <ProjectsScreen /> : null}
            {route.screen === 'project' ? <ProjectScreen projectId={route.projectId} /> : null}
            {route.screen === 'chain' ? <ChainScreen /> : null}
            {route.screen === 'notFound' ? <NotFoundScreen home="/dashboard" /> : null}
          </div>
        </div>
      </div>
    </DashboardContext.Provider>
  );
}

function DashboardTopbar({ session }: { session?: Session }) {
  return (
    <header className="topbar">
      <div className="topbar-inner wide">
        <Link href="/dashboard" className="brand">
          <span className="brand-mark">
            <Icon name="bolt" size={16} />
          </span>
          wharf <span className="brand-sub">Developer</span>
        </Link>
        <div className="topbar-spacer" />
        {session ? (
          <>
            <span className="account-chip">
              {session.kind === 'operator' ? (
                <>
                  <Icon name="shield" size={14} /> Operator
                </>
              ) : (
                <>
                  <span className="dot live" />
                  <Address address={session.address} />
                </>
              )}
            </span>
            <button
              type="button"
              className="btn btn-ghost btn-sm"
              onClick={() => signOut('dashboard')}
              aria-label="Sign out"
            >
              <Icon name="logout" size={16} />
            </button>
          </>
        ) : null}
      </div>
    </header>
  );
}

function OperatorSignIn() {
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      // The token is checked by using it: listing projects is what the operator does first.
      await createDashboardClient({ baseUrl: '', role: 'operator', token: token.trim() }).projects();
      setSession('dashboard', { kind: 'operator', token: token.trim() });
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="card" onSubmit={submit}>
      <div className="card-body stack">
        <div className="row">
          <Icon name="shield" />
          <h3>Operator</h3>
        </div>
        <p className="muted small">
          The admin token printed by <code>wharf up</code> (or <code>WHARF_ADMIN_TOKEN</code>) whitelists
          projects.
        </p>
        <Field label="Admin token" htmlFor="admin-token">
          <input
            id="admin-token"
            className="input mono"
            type="password"
            autoComplete="off"
            value={token}
            onChange={(e) => setToken(e.target.value)}
          />
        </Field>
        {error ? <ErrorAlert error={error} /> : null}
        <div>
          <Button type="submit" busy={busy} disabled={token.trim() === ''}>
            Sign in as operator
          </Button>
        </div>
      </div>
    </form>
  );
}
