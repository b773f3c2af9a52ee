/**
 * Every method the wallet answers, by name: its own handlers (one file per group), the methods
 * that need a connected origin, and the read methods it forwards to the origin's chain.
 */
import { accountMethods } from './accounts.js';
import { chainMethods } from './chains.js';
import type { Handler } from './handler.js';
import { permissionMethods } from './permissions.js';
import { signMethods } from './sign.js';
import { transactionMethods } from './transactions.js';

export const handlers: Record<string, Handler> = {
  ...chainMethods,
  ...accountMethods,
  ...permissionMethods,
  ...signMethods,
  ...transactionMethods,
};

/** Read methods forwarded to the chain's RPC URL. Anything else the wallet does not handle is 4200. */
export const forwardedMethods = new Set([
  'eth_blockNumber',
  'eth_call',
  'eth_estimateGas',
  'eth_gasPrice',
  'eth_maxPriorityFeePerGas',
  'eth_feeHistory',
  'eth_blobBaseFee',
  'eth_getBalance',
  'eth_getCode',
  'eth_getStorageAt',
  'eth_getProof',
  'eth_getTransactionCount',
  'eth_getBlockByNumber',
  'eth_getBlockByHash',
  'eth_getBlockReceipts',
  'eth_getBlockTransactionCountByHash',
  'eth_getBlockTransactionCountByNumber',
  'eth_getTransactionByHash',
  'eth_getTransactionByBlockHashAndIndex',
  'eth_getTransactionByBlockNumberAndIndex',
  'eth_getTransactionReceipt',
  'eth_getUncleCountByBlockHash',
  'eth_getUncleCountByBlockNumber',
  'eth_getLogs',
  'eth_newFilter',
  'eth_newBlockFilter',
  'eth_newPendingTransactionFilter',
  'eth_getFilterChanges',
  'eth_getFilterLogs',
  'eth_uninstallFilter',
  'eth_createAccessList',
  'eth_simulateV1',
  'eth_syncing',
  'eth_protocolVersion',
  'eth_sendRawTransaction',
  'net_listening',
  'net_peerCount',
  'web3_clientVersion',
  'web3_sha3',
]);

/** Methods that need the origin to be connected (an eth_accounts permission). */
export const needsAccounts = new Set([
  'personal_sign',
  'eth_signTypedData_v4',
  'eth_sendTransaction',
  'eth_signTransaction',
]);
