/**
 * EIP-6963 (multi injected provider discovery): announce a provider on `window` with
 * `eip6963:announceProvider`, and again whenever a dapp dispatches `eip6963:requestProvider`.
 */

/** EIP-6963 provider info. */
export interface EIP6963ProviderInfo {
  /** A UUIDv4, unique per page session. */
  uuid: string;
  name: string;
  /** A data URI of a square image (at least 96x96). */
  icon: string;
  /** Reverse DNS name of the wallet. */
  rdns: string;
}

export interface EIP6963ProviderDetail<P = unknown> {
  info: EIP6963ProviderInfo;
  provider: P;
}

/** Where the events go (`window`). */
export interface EventTargetLike {
  addEventListener(type: string, listener: () => void): void;
  removeEventListener(type: string, listener: () => void): void;
  dispatchEvent(event: unknown): boolean;
}

/** The wallet's default icon: a small boat on water, as an SVG data URI. */
export const WHARF_ICON = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 96 96"><rect width="96" height="96" rx="20" fill="#0b3d5c"/><path d="M18 56h60l-10 16H28z" fill="#f5f0e6"/><path d="M48 20v32H30z" fill="#f5a623"/><path d="M14 80c8 0 8-4 17-4s9 4 17 4 9-4 17-4 9 4 17 4" stroke="#7cc6e8" stroke-width="4" fill="none"/></svg>',
)}`;

export const defaultProviderInfo: Omit<EIP6963ProviderInfo, 'uuid'> = {
  name: 'wharf',
  icon: WHARF_ICON,
  rdns: 'dev.wharf.wallet',
};

function uuidV4(): string {
  const c = globalThis.crypto;
  if (typeof c.randomUUID === 'function') {
    try {
      return c.randomUUID();
    } catch {
      // not a secure context: fall through
    }
  }
  const b = new Uint8Array(16);
  c.getRandomValues(b);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * Announces `provider` now and on every `eip6963:requestProvider`. Returns a function that
 * stops answering requests.
 */
export function announceProvider<P>(options: {
  provider: P;
  info?: Partial<EIP6963ProviderInfo>;
  /** Default: `globalThis` (the window). */
  target?: EventTargetLike;
}): { detail: EIP6963ProviderDetail<P>; stop(): void } {
  const target = options.target ?? (globalThis as unknown as EventTargetLike);
  const info = Object.freeze({ ...defaultProviderInfo, uuid: uuidV4(), ...options.info });
  const detail = Object.freeze({ info, provider: options.provider });
  const announce = () => {
    target.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail }));
  };
  target.addEventListener('eip6963:requestProvider', announce);
  announce();
  return { detail, stop: () => target.removeEventListener('eip6963:requestProvider', announce) };
}
