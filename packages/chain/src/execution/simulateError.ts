/**
 * A failure of eth_simulateV1 or of state overrides, with the code geth answers it with: the
 * EIP's -380xx codes, or a JSON-RPC one (both from the registry, primitives/errorCodes.ts).
 */
import type { ErrorCodeValue } from '../primitives/errorCodes.js';

export class SimulateError extends Error {
  override readonly name = 'SimulateError';
  constructor(
    readonly code: ErrorCodeValue,
    message: string,
  ) {
    super(message);
  }
}
