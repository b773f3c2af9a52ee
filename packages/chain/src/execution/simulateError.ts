/**
 * A failure of eth_simulateV1 or of state overrides, with the code geth answers it with: the
 * EIP's -380xx codes, or a JSON-RPC one.
 */
export class SimulateError extends Error {
  override readonly name = 'SimulateError';
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}
