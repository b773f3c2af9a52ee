/** The shape of a wallet method handler (methods/*.ts): the core, the calling origin, its params. */
import type { WalletCore } from '../walletCore.js';

export type Handler = (w: WalletCore, origin: string, params: unknown, method: string) => Promise<unknown>;
