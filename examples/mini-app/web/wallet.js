// Finding the wallet the way any dapp does: EIP-6963 announcements first, window.ethereum as the
// fallback. Inside the wharf platform's frame, the platform's wallet is reached over postMessage:
// `installIframeWallet` announces it with EIP-6963 and sets window.ethereum, so the rest of the
// app does not know it is framed (opened on its own, a browser extension wallet is found instead).
import { installIframeWallet } from '@wharf/wallet/bridge';

/** The origin of the page framing this one, or undefined when not framed. */
function parentOrigin() {
  if (window.parent === window) return undefined;
  const ancestor = window.location.ancestorOrigins?.[0];
  if (ancestor) return ancestor;
  return document.referrer ? new URL(document.referrer).origin : undefined;
}

/**
 * @param {number} [waitMs] how long to collect announcements
 * @returns {Promise<{ provider: import('viem').EIP1193Provider, name: string, via: string } | undefined>}
 */
export async function findWallet(waitMs = 250) {
  const origin = parentOrigin();
  if (origin) installIframeWallet({ parentOrigin: origin });

  /** @type {{ info: { name: string, rdns: string }, provider: import('viem').EIP1193Provider }[]} */
  const announced = [];
  const onAnnounce = (/** @type {any} */ event) => announced.push(event.detail);
  window.addEventListener('eip6963:announceProvider', onAnnounce);
  window.dispatchEvent(new Event('eip6963:requestProvider'));
  await new Promise((resolve) => setTimeout(resolve, waitMs));
  window.removeEventListener('eip6963:announceProvider', onAnnounce);

  // Several wallets may answer; a real app lets the user choose. The platform's comes first here.
  const chosen = announced.find((d) => d.info.rdns.includes('wharf')) ?? announced[0];
  if (chosen) return { provider: chosen.provider, name: chosen.info.name, via: 'EIP-6963' };
  const injected = /** @type {any} */ (window).ethereum;
  if (injected) return { provider: injected, name: 'injected provider', via: 'window.ethereum' };
  return undefined;
}
