/** EIP-2255 permissions: wallet_getPermissions, wallet_requestPermissions, wallet_revokePermissions. */
import { ProviderRpcError, walletErrorCodes, walletErrors } from '../errors.js';
import type { Handler } from './handler.js';

export const permissionMethods: Record<string, Handler> = {
  wallet_getPermissions: async (w, origin) => w.permissionsOf(origin),

  wallet_requestPermissions: async (w, origin, params, method) => {
    const request = Array.isArray(params) ? params[0] : undefined;
    if (
      !request ||
      typeof request !== 'object' ||
      Array.isArray(request) ||
      Object.keys(request).length === 0
    ) {
      throw walletErrors.invalidParams(
        `Expected single, object parameter. Received:\n${JSON.stringify(params)}`,
      );
    }
    for (const name of Object.keys(request)) {
      if (name !== 'eth_accounts') {
        throw new ProviderRpcError(
          walletErrorCodes.methodNotFound,
          `The method "${name}" does not exist / is not available.`,
          { method: name },
        );
      }
    }
    const accounts = w.allAddresses();
    await w.approvals.ask({ type: 'requestAccounts', origin, method, params, accounts });
    await w.grantAccounts(origin, accounts);
    return w.permissionsOf(origin);
  },

  wallet_revokePermissions: async (w, origin, params) => {
    const request = Array.isArray(params) ? params[0] : undefined;
    if (!request || typeof request !== 'object' || Object.keys(request).length === 0) {
      throw walletErrors.invalidParams('Invalid params', { params });
    }
    const { permissions } = w.s;
    if ('eth_accounts' in request && permissions[origin]?.eth_accounts) {
      const before = w.permittedAccounts(origin);
      const { eth_accounts: _, ...rest } = permissions[origin];
      if (Object.keys(rest).length) permissions[origin] = rest;
      else delete permissions[origin];
      await w.savePermissions(origin);
      if (before.length) w.emit(origin, 'accountsChanged', []);
    }
    return null;
  },
};
