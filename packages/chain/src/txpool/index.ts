/**
 * The transaction pool behind eth_sendRawTransaction: geth's rules and exact error messages.
 * See README.md for the rules, the limits and every error.
 */
export { createTxPool } from './pool.js';
export { TxPoolError } from './types.js';
export { IMPERSONATED_S } from './decode.js';
export type { PoolStateReader, PoolTransaction, TxPool, TxPoolConfig } from './types.js';
export { RecoveryThread } from './recoveryThread.js';
export {
  APPEND_BATCH_MS,
  attachJournal,
  createFileTxJournal,
  type TxJournal,
} from './journal.js';
