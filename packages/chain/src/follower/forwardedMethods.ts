/**
 * The write methods a follower forwards to its sequencer (the one node that orders transactions):
 * it answers exactly what the sequencer answered, result or error. Everything else a follower
 * answers from its own copy of the chain.
 */
import { type Methods, method } from '../rpc/context.js';
import type { SequencerClient } from './sequencerClient.js';

export function forwardedMethods(sequencer: SequencerClient): Methods {
  return {
    eth_sendRawTransaction: method(['data'], 1, async (p) =>
      sequencer.call('eth_sendRawTransaction', [p.raw(0)]),
    ),
    // EIP-7966: the sequencer waits for the pre-confirmation; the call stays open that long.
    eth_sendRawTransactionSync: method(['data', 'timeout'], 1, async (p) =>
      sequencer.call(
        'eth_sendRawTransactionSync',
        p.raw(1) === undefined ? [p.raw(0)] : [p.raw(0), p.raw(1)],
      ),
    ),
  };
}
