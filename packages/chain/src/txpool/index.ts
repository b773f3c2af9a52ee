/**
 * The transaction pool behind eth_sendRawTransaction: geth's rules and exact error messages.
 * See README.md for the rules, the limits and every error.
 */
export { createTxPool, TX_POOL_DEFAULTS } from './pool.js';
export { TxPoolError } from './types.js';
export { IMPERSONATED_S } from './decode.js';
export type {
  Hex,
  PoolStateReader,
  PoolTransaction,
  TxPool,
  TxPoolConfig,
  TxPoolStatus,
} from './types.js';
export { TxPoolErrorMessage, type TxPoolErrorKind } from './errors.js';
export { RecoveryThread, type SenderRecovery } from './recoveryThread.js';
export { intrinsicGas, floorDataGas } from './intrinsicGas.js';
export {
  APPEND_BATCH_MS,
  attachJournal,
  createFileTxJournal,
  type AttachedJournal,
  type JournalOptions,
  type TxJournal,
} from './journal.js';
