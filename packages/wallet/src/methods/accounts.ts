/** Which accounts an origin sees: eth_accounts, eth_coinbase, eth_requestAccounts (EIP-1102). */
import type { Handler } from './handler.js';

export const accountMethods: Record<string, Handler> = {
  eth_accounts: async (w, origin) => w.permittedAccounts(origin),
  eth_coinbase: async (w, origin) => w.permittedAccounts(origin)[0] ?? null,

  eth_requestAccounts: async (w, origin, params, method) => {
    const existing = w.permittedAccounts(origin);
    if (existing.length > 0) return existing;
    const accounts = w.allAddresses();
    await w.approvals.ask({ type: 'requestAccounts', origin, method, params, accounts });
    await w.grantAccounts(origin, accounts);
    return w.permittedAccounts(origin);
  },
};
