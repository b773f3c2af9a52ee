/**
 * Approvals: how a person says yes or no. One pending approval per origin; a second one while
 * the first waits is -32002. Without an `approve` callback every approval is refused (4001).
 */
import type { ChainRecord } from './chains/chainRegistry.js';
import { ProviderRpcError, walletErrors } from './errors.js';

interface ApprovalBase {
  /** Unique per approval, for the app's dialogs. */
  id: string;
  /** The site that asks. */
  origin: string;
  /** The JSON-RPC method that needs the approval. */
  method: string;
  params: unknown;
}

/** What `approve(request)` is shown. `type` tells the app which dialog to draw. */
export type ApprovalRequest =
  | (ApprovalBase & { type: 'requestAccounts'; accounts: `0x${string}`[] })
  | (ApprovalBase & { type: 'addEthereumChain'; chain: ChainRecord; existingChain?: ChainRecord })
  | (ApprovalBase & { type: 'switchEthereumChain'; chain: ChainRecord; fromChainId: `0x${string}` })
  | (ApprovalBase & { type: 'signMessage'; address: `0x${string}`; message: string })
  | (ApprovalBase & { type: 'signTypedData'; address: `0x${string}`; typedData: unknown })
  | (ApprovalBase & {
      type: 'sendTransaction' | 'signTransaction';
      address: `0x${string}`;
      chainId: `0x${string}`;
      transaction: Record<string, unknown>;
    });

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type ApprovalInput = DistributiveOmit<ApprovalRequest, 'id'>;

/** Resolves `true` (yes) or `false` (no). */
export type ApproveFn = (request: ApprovalRequest) => boolean | Promise<boolean>;

/** The approval type names of the -32002 message, as MetaMask names them. */
const approvalTypeNames: Record<ApprovalRequest['type'], string> = {
  requestAccounts: 'wallet_requestPermissions',
  addEthereumChain: 'wallet_addEthereumChain',
  switchEthereumChain: 'wallet_switchEthereumChain',
  signMessage: 'personal_sign',
  signTypedData: 'eth_signTypedData',
  sendTransaction: 'transaction',
  signTransaction: 'transaction',
};

export class Approvals {
  private readonly pending = new Set<string>();
  private counter = 0;

  constructor(private readonly approve: ApproveFn | undefined) {}

  /** True when `origin` has an approval waiting. */
  isPending(origin: string): boolean {
    return this.pending.has(origin);
  }

  /** Asks; resolves when the answer is yes, throws 4001 on no and -32002 when one is pending. */
  async ask(input: ApprovalInput): Promise<void> {
    if (this.pending.has(input.origin))
      throw walletErrors.alreadyPending(input.origin, approvalTypeNames[input.type]);
    if (!this.approve) throw walletErrors.userRejected();
    const request = {
      ...input,
      id: `approval-${Date.now().toString(36)}-${++this.counter}`,
    } as ApprovalRequest;
    this.pending.add(input.origin);
    let answer: unknown;
    try {
      answer = await this.approve(request);
    } catch (error) {
      if (error instanceof ProviderRpcError) throw error;
      throw walletErrors.userRejected();
    } finally {
      this.pending.delete(input.origin);
    }
    if (answer !== true) throw walletErrors.userRejected();
  }
}
