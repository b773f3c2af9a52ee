/** web3_ namespace. */
import { keccak256 } from '../crypto/keccak.js';
import { bytesToHex } from '../primitives/hex.js';
import { method, type Methods } from './context.js';

export const web3Methods: Methods = {
  web3_clientVersion: method([], 0, (_p, c) => c.clientVersion),
  web3_sha3: method(['data'], 1, (p) => bytesToHex(keccak256(p.data(0)))),
};
