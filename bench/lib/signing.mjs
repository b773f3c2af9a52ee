// Signing set-up shared by the load benchmarks: the dev accounts' keys and an @ethereumjs Common
// for chain 31337 (Prague) that signs with native secp256k1 (the node's own dependency; @noble's
// would take minutes for the tens of thousands of transfers a run signs up front).
import { createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common';
import secp from 'secp256k1';
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
