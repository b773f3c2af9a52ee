/**
 * The platform app at `/`: sign-in, then a shell with four tabs (Apps, Discover, Inbox, Wallet)
 * and the mini-app frame. A 401 from any call signs the person out.
 */
import { useCallback, useMemo } from 'react';
import { createPlatformClient } from '@wharf/sdk';
import { useSession } from '../auth/session.js';
import { signOut } from '../auth/signOut.js';
import { signOutOn401 } from '../auth/signOutOn401.js';
import { Address } from '../components/Address.js';
import { Icon, type IconName } from '../components/Icon.js';
import { Link } from '../components/Link.js';
import { InboxProvider, useInbox } from '../inbox/InboxContext.js';
import { PlatformContext, type WalletSession } from '../platform/PlatformContext.js';
import type { Route } from '../router/routes.js';
import { closeWallet } from '../wallet/walletHost.js';
import { AppsScreen } from './AppsScreen.js';
import { DiscoverScreen } from './DiscoverScreen.js';
import { InboxScreen } from './InboxScreen.js';
import { MiniAppScreen } from './MiniAppScreen.js';
import { NotFoundScreen } from './NotFoundScreen.js';
import { SignInScreen } from './SignInScreen.js';
import { WalletScreen } from './WalletScreen.js';

export function signOutPlatform(): void {
  closeWallet();
  signOut('client');
}

export function PlatformApp({ route }: { route: Route }) {
  const session = useSession('client');
  if (session?.kind !== 'wallet')
    return (
      <main className="page page-narrow">
        <SignInScreen
          realm="client"
          title="Sign in to wharf"
          subtitle="Your wallet, your pinned apps and their notifications, on your own machine."
        />
      </main>
    );
  return <SignedIn session={session} route={route} />;
}

function SignedIn({ session, route }: { session: WalletSession; route: Route }) {
  const api = useMemo(
    () => signOutOn401(createPlatformClient({ baseUrl: '', token: session.token }), signOutPlatform),
    [session.token],
  );
  const platform = useMemo(() => ({ session, api }), [session, api]);
  const onUnauthorized = useCallback(() => signOutPlatform(), []);
  return (
    <PlatformContext.Provider value={platform}>
      <InboxProvider api={api} onUnauthorized={onUnauthorized}>
        <div className="shell">
          <Header session={session} route={route} />
          <Screen route={route} />
          <TabBar route={route} />
        </div>
      </InboxProvider>
    </PlatformContext.Provider>
  );
}

const tabs: {
  screen: 'apps' | 'discover' | 'inbox' | 'wallet';
  href: string;
  label: string;
  icon: IconName;
}[] = [
  { screen: 'apps', href: '/', label: 'My apps', icon: 'apps' },
  { screen: 'discover', href: '/discover', label: 'Discover', icon: 'compass' },
  { screen: 'inbox', href: '/inbox', label: 'Inbox', icon: 'bell' },
  { screen: 'wallet', href: '/wallet', label: 'Wallet', icon: 'wallet' },
];

function UnreadBadge() {
  const { unread } = useInbox();
  if (unread === 0) return null;
  return (
    <span className="count-badge" data-testid="unread-badge">
      {unread > 99 ? '99+' : unread}
      <span className="visually-hidden"> unread</span>
    </span>
  );
}

function NavLinks({ route }: { route: Route }) {
  return (
    <>
      {tabs.map((tab) => (
        <Link
          key={tab.screen}
          href={tab.href}
          className={route.screen === tab.screen ? 'navlink active' : 'navlink'}
          aria-current={route.screen === tab.screen ? 'page' : undefined}
        >
          <Icon name={tab.icon} size={18} />
          <span>{tab.label}</span>
          {tab.screen === 'inbox' ? <UnreadBadge /> : null}
        </Link>
      ))}
    </>
  );
}

function Header({ session, route }: { session: WalletSession; route: Route }) {
  return (
    <header className="topbar">
      <div className="topbar-inner">
        <Link href="/" className="brand">
          <span className="brand-mark">
            <Icon name="bolt" size={16} />
          </span>
          wharf
        </Link>
        <nav className="topnav" aria-label="Main">
          <NavLinks route={route} />
        </nav>
        <div className="topbar-spacer" />
        <span className="account-chip" title={session.address}>
          <span className="dot live" />
          <Address address={session.address} />
        </span>
        <button
          type="button"
          className="btn btn-ghost btn-sm"
          onClick={signOutPlatform}
          aria-label="Sign out"
        >
          <Icon name="logout" size={16} />
        </button>
      </div>
    </header>
  );
}

function TabBar({ route }: { route: Route }) {
  return (
    <nav className="tabbar" aria-label="Tabs">
      <NavLinks route={route} />
    </nav>
  );
}

function Screen({ route }: { route: Route }) {
  switch (route.screen) {
    case 'apps':
      return <AppsScreen />;
    case 'discover':
      return <DiscoverScreen />;
    case 'inbox':
      return <InboxScreen />;
    case 'wallet':
      return <WalletScreen />;
    case 'open':
      return <MiniAppScreen url={route.url} />;
    default:
      return <NotFoundScreen home="/" />;
  }
}
