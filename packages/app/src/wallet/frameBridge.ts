/**
 * Connects one mini-app iframe to the wallet: the wallet's postMessage bridge server answers the
 * frame's requests with `wallet.provider(frameOrigin)`, so permissions, approvals and the chain
 * are the mini app's own. The mini app side announces the provider with EIP-6963.
 */
import type { Wallet } from '@wharf/wallet';

export interface FrameBridge {
  close(): void;
}

/** Returns null while the wallet package does not export its bridge. */
export function attachFrameBridge(
  frame: HTMLIFrameElement,
  origin: string,
  wallet: Wallet,
): FrameBridge | null {
  void frame;
  void origin;
  void wallet;
  return null;
}
