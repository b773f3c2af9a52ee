/**
 * Connects one mini-app iframe to the wallet: the wallet's postMessage bridge server answers the
 * frame's requests with `wallet.provider(frameOrigin)`, so permissions, approvals and the chain
 * are the mini app's own. The mini app side (`installIframeWallet`) announces the provider with
 * EIP-6963 and sets `window.ethereum`.
 */
import type { Wallet } from '@wharf/wallet';
import { createBridgeServer, iframeEndpoint } from '@wharf/wallet/bridge';

export interface FrameBridge {
  close(): void;
}

export function attachFrameBridge(
  frame: HTMLIFrameElement,
  origin: string,
  wallet: Wallet,
): FrameBridge | null {
  const target = frame.contentWindow;
  if (!target) return null;
  return createBridgeServer({
    provider: wallet.provider(origin),
    endpoint: iframeEndpoint({ frame: target, origin }),
  });
}
