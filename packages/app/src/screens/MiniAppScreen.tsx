/**
 * A mini app in a frame. The sandbox lets the app run scripts, forms and popups, and keep its own
 * origin (it is a different origin from ours, so that grants nothing over this page); it may not
 * navigate the top window. Its wallet is the bridge to ours, under its own origin.
 */
import { useEffect, useRef, useState } from 'react';
import { AppIcon, appHost } from '../components/AppIcon.js';
import { Icon } from '../components/Icon.js';
import { Loading } from '../components/States.js';
import { useWallet } from '../wallet/useWallet.js';
import { attachFrameBridge } from '../wallet/frameBridge.js';
import { usePlatform } from '../platform/PlatformContext.js';

export function MiniAppScreen({ url }: { url: string }) {
  const { session } = usePlatform();
  const wallet = useWallet(session.signer);
  const frame = useRef<HTMLIFrameElement>(null);
  const [reloads, setReloads] = useState(0);
  const [bridged, setBridged] = useState<boolean>();
  const origin = new URL(url).origin;
  const path = new URL(url).pathname + new URL(url).search;

  // biome-ignore lint/correctness/useExhaustiveDependencies: a reload remounts the frame; the bridge follows it
  useEffect(() => {
    // The frame renders once the wallet is ready, so the bridge listens before the app says hello.
    const element = frame.current;
    if (!element || !wallet.data) return;
    const bridge = attachFrameBridge(element, origin, wallet.data.wallet);
    setBridged(bridge !== null);
    return () => bridge?.close();
  }, [origin, wallet.data, reloads]);

  return (
    <main className="miniapp">
      <div className="miniapp-bar">
        <button
          type="button"
          className="btn btn-ghost btn-sm"
          onClick={() => history.back()}
          aria-label="Back"
        >
          <Icon name="back" size={18} />
        </button>
        <AppIcon appUrl={url} />
        <div className="grow">
          <div className="list-item-title">{appHost(url)}</div>
          <div className="list-item-sub mono" data-testid="miniapp-url">
            {path}
          </div>
        </div>
        {bridged === false || wallet.error ? (
          <span className="badge badge-warning" title="This app cannot reach your wallet">
            No wallet
          </span>
        ) : null}
        <button
          type="button"
          className="btn btn-ghost btn-sm"
          onClick={() => setReloads((r) => r + 1)}
          aria-label="Reload"
        >
          <Icon name="refresh" size={16} />
        </button>
        <a
          className="btn btn-ghost btn-sm"
          href={url}
          target="_blank"
          rel="noreferrer"
          aria-label="Open in a new tab"
        >
          <Icon name="external" size={16} />
        </a>
      </div>
      {wallet.loading && !wallet.data ? (
        <Loading label="Connecting the wallet…" />
      ) : (
        <iframe
          key={reloads}
          ref={frame}
          className="miniapp-frame"
          title={appHost(url)}
          src={url}
          sandbox="allow-scripts allow-same-origin allow-forms allow-popups allow-popups-to-escape-sandbox allow-modals"
          allow="clipboard-write"
          referrerPolicy="strict-origin-when-cross-origin"
          data-testid="miniapp-frame"
        />
      )}
    </main>
  );
}
