/** net_ namespace: a single sequencer with no peers. */
import { method, type Methods } from './context.js';

export const netMethods: Methods = {
  net_version: method([], 0, (_p, c) => c.chain.spec.chainId.toString()),
  net_listening: method([], 0, () => true),
  net_peerCount: method([], 0, () => '0x0'),
};
