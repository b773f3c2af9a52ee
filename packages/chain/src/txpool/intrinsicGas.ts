/**
 * Intrinsic gas and the EIP-7623 floor, computed as geth's core.IntrinsicGas / core.FloorDataGas
 * (Istanbul calldata prices, Shanghai initcode words, Berlin access lists, Prague authorizations).
 */

export interface IntrinsicGasInput {
  data: Uint8Array;
  /** Contract creation (no recipient). */
  isCreate: boolean;
  accessListAddresses: number;
  accessListStorageKeys: number;
  authorizations: number;
}

const TX_GAS = 21_000n;
const TX_GAS_CONTRACT_CREATION = 53_000n;
const TX_DATA_ZERO_GAS = 4n;
const TX_DATA_NON_ZERO_GAS = 16n;
const INIT_CODE_WORD_GAS = 2n;
const ACCESS_LIST_ADDRESS_GAS = 2_400n;
const ACCESS_LIST_STORAGE_KEY_GAS = 1_900n;
/** EIP-7702 PER_EMPTY_ACCOUNT_COST, charged per authorization tuple. */
const AUTHORIZATION_GAS = 25_000n;
/** EIP-7623 TOTAL_COST_FLOOR_PER_TOKEN. */
const FLOOR_PER_TOKEN = 10n;
/** EIP-3860 MAX_INITCODE_SIZE. */
export const MAX_INITCODE_SIZE = 49_152;

function countZeroBytes(data: Uint8Array): number {
  let zeros = 0;
  for (let i = 0; i < data.length; i++) if (data[i] === 0) zeros++;
  return zeros;
}

/** The gas a transaction must provide before execution starts. */
export function intrinsicGas(input: IntrinsicGasInput): bigint {
  const { data } = input;
  let gas = input.isCreate ? TX_GAS_CONTRACT_CREATION : TX_GAS;
  if (data.length > 0) {
    const zeros = BigInt(countZeroBytes(data));
    const nonZeros = BigInt(data.length) - zeros;
    gas += zeros * TX_DATA_ZERO_GAS + nonZeros * TX_DATA_NON_ZERO_GAS;
    if (input.isCreate) gas += BigInt(Math.ceil(data.length / 32)) * INIT_CODE_WORD_GAS;
  }
  gas += BigInt(input.accessListAddresses) * ACCESS_LIST_ADDRESS_GAS;
  gas += BigInt(input.accessListStorageKeys) * ACCESS_LIST_STORAGE_KEY_GAS;
  gas += BigInt(input.authorizations) * AUTHORIZATION_GAS;
  return gas;
}

/** EIP-7623 (Prague): 21000 + 10 per calldata token (a zero byte is 1 token, a non-zero byte 4). */
export function floorDataGas(data: Uint8Array): bigint {
  const zeros = countZeroBytes(data);
  const tokens = BigInt(zeros + (data.length - zeros) * 4);
  return TX_GAS + tokens * FLOOR_PER_TOKEN;
}
