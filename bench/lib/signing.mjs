// Signing set-up shared by the load benchmarks: the dev accounts' keys and an @ethereumjs Common
// for chain 31337 (Prague) that signs with native secp256k1 (the node's own dependency; @noble's
// would take minutes for the tens of thousands of transfers a run signs up front).
import { createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common';
import secp from 'secp256k1';
import { keccak256 } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { MNEMONIC } from './peers.mjs';

/** @ethereumjs/tx takes noble's 65-byte "recovered" form: the recovery id, then r and s. */
function ecsign(msg, key) {
  const { signature, recid } = secp.ecdsaSign(msg, key);
  const out = new Uint8Array(65);
  out[0] = recid;
  out.set(signature, 1);
  return out;
}

/** The Common to sign transfers for a wharf dev node, and the first `senders` dev keys. */
export function devSigning(senders, chainId = 31337) {
  const common = createCustomCommon({ chainId }, Mainnet, {
    hardfork: Hardfork.Prague,
    customCrypto: { ecsign },
  });
  const keys = Array.from(
    { length: senders },
    (_, i) => mnemonicToAccount(MNEMONIC, { addressIndex: i }).getHdKey().privateKey,
  );
  return { common, keys };
}

/** RLP of a non-negative integer: its minimal big-endian bytes (0 is the empty string). */
function intBytes(n) {
  let hex = BigInt(n).toString(16);
  if (hex === '0') return new Uint8Array(0);
  if (hex.length % 2) hex = `0${hex}`;
  return Uint8Array.from(Buffer.from(hex, 'hex'));
}

/** RLP of a byte string or a list (an array of already encoded items). */
function rlp(item) {
  if (Array.isArray(item)) {
    const body = Buffer.concat(item);
    return Buffer.concat([rlpLength(body.length, 0xc0), body]);
  }
  if (item.length === 1 && item[0] < 0x80) return Buffer.from(item);
  return Buffer.concat([rlpLength(item.length, 0x80), item]);
}

function rlpLength(len, offset) {
  if (len <= 55) return Buffer.from([offset + len]);
  const bytes = intBytes(len);
  return Buffer.from([offset + 55 + bytes.length, ...bytes]);
}

const strip = (b) => {
  let i = 0;
  while (i < b.length - 1 && b[i] === 0) i++;
  return b[i] === 0 ? b.subarray(b.length) : b.subarray(i);
};

/**
 * A signed EIP-1559 transfer (no data, no access list), serialized: the same bytes @ethereumjs/tx
 * gives (bench/test/signing.test.ts checks), in a fifth of its time, which matters when an hour's
 * run signs 3.6 million of them up front. `to` is 20 bytes; the numbers are bigint or number.
 */
export function signTransfer(
  { chainId, nonce, maxPriorityFeePerGas, maxFeePerGas, gasLimit, to, value },
  key,
) {
  const fields = [chainId, nonce, maxPriorityFeePerGas, maxFeePerGas, gasLimit].map((n) => rlp(intBytes(n)));
  fields.push(rlp(to), rlp(intBytes(value)), rlp(new Uint8Array(0)), rlp([]));
  const hash = keccak256(Buffer.concat([Buffer.from([2]), rlp(fields)]), 'bytes');
  const { signature, recid } = secp.ecdsaSign(hash, key);
  fields.push(
    rlp(intBytes(recid)),
    rlp(strip(signature.subarray(0, 32))),
    rlp(strip(signature.subarray(32))),
  );
  return Buffer.concat([Buffer.from([2]), rlp(fields)]);
}
