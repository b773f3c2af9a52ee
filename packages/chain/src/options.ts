import type { Logger } from 'pino';
import { defaultRpcLimits, type RpcLimits } from './rpc/limits.js';

/** A funded development account derived from the mnemonic (printed by `wharf up`, as Anvil does). */
export interface DevAccount {
  address: `0x${string}`;
  privateKey: `0x${string}`;
}

/** Options of `startChainNode`; every field has the default of docs/design (Defaults). */
export interface ChainNodeOptions {
  host: string;
  port: number;
  /** The chain's data lives in `<dataDir>/chain`. */
  dataDir: string;
  chainId: bigint;
  /** Seconds between sealed blocks; 0 seals one block per transaction. */
  blockTime: number;
  /** Milliseconds between flashblocks (pre-confirmations). */
  flashblockInterval: number;
  /** false: never seal (imported chains, conformance runs). */
  mining: boolean;
  /**
   * Longest wait for the flashblock journal's disk, in ms: past it the flashblock is not shown
   * and its transactions wait for the next (decision 0210). Default 2,000.
   */
  journalWaitMs?: number;
  /**
   * How long an accepted transaction waits before the pool journal writes it, in ms: one
   * pre-confirmed meanwhile is not written (it is in the flashblock journal; decision 0490).
   * Default 500.
   */
  poolJournalDelayMs?: number;
  /**
   * The block being built in the spec table's null shape: `eth_getBlockByNumber("pending")` with
   * `number` and `hash` null, pre-confirmed receipts (and their logs) with `blockHash` null.
   * Default false: Base's shape (`number` = latest + 1, the zero hash), which ethers v6 and cast
   * parse.
   */
  pendingNulls: boolean;
  gasLimit: bigint;
  /** Number of dev accounts derived from `mnemonic`. */
  accounts: number;
  mnemonic: string;
  /** Balance of each dev account, in wei. */
  balance: bigint;
  /** Initial base fee per gas of the genesis block, in wei. */
  baseFee: bigint;
  /** A geth genesis.json to start from instead of the dev genesis. */
  genesisPath?: string;
  /** Keep the chain in memory only, as Anvil does by default (`dataDir` unused). */
  ephemeral?: boolean;
  /** An Anvil state file to load at start, sealed in a block of its own (`--load-state`). */
  loadState?: string;
  /** Where to write the state (Anvil's JSON) when the node closes (`--dump-state`). */
  dumpState?: string;
  /**
   * The test methods (anvil_*, hardhat_*, evm_*, impersonation): any RPC client may rewrite
   * state and history with them. On unless false (`--no-dev-methods`): a node that serves
   * others must turn them off (docs/security.md).
   */
  devMethods?: boolean;
  /**
   * Fork another node (`--fork-url`, `--fork-block-number`): a new data directory starts at the
   * remote's block `blockNumber` (default its latest) and reads accounts, code, storage and older
   * blocks from it as they are needed, keeping them (docs/decisions/0144-fork-reads.md). `chainId`:
   * the user's `--chain-id`, else the remote's. An existing fork data directory needs no `fork`
   * (its remote is stored); `url` then points it at a remote that moved.
   */
  fork?: { url: string; blockNumber?: bigint; chainId?: bigint };
  /** Milliseconds a request to the fork's remote may take (`--fork-timeout`, default 10,000). */
  forkTimeoutMs?: number;
  /**
   * Past blocks whose state stays readable (`--state-window`, default 128): their trie changes
   * are kept in memory as diff layers; older state answers -32000 naming the flag (0211).
   */
  stateWindow?: number;
  /**
   * Bytes the window's trie nodes may take in memory (`--state-window-memory`, default 32 MiB):
   * beyond, the oldest blocks' state goes early (busy blocks write MBs of nodes each).
   */
  stateWindowMemoryBytes?: number;
  /**
   * Bytes of the trie on disk's nodes kept in memory (`--state-cache-memory`, default 32 MiB;
   * 0: none): what the disk layer's flushes wrote and what was read from LevelDB (decision 0471).
   */
  stateCacheMemoryBytes?: number;
  /** Per-request and per-connection limits of the JSON-RPC server (docs/security.md). */
  limits: RpcLimits;
  logger?: Logger;
  /**
   * Resolves once the hosting process has finished starting (`wharf up` starts the platform after
   * the chain). Flashblocks due before then are not warned about as late (debug level instead).
   * Default: the node's own start.
   */
  started?: Promise<unknown>;
  /**
   * Follow a sequencer instead of producing blocks (`wharf chain follow`): its sealed blocks are
   * validated and imported, writes are forwarded to it, reads are answered here.
   */
  follow?: {
    /** The sequencer's JSON-RPC URL (HTTP). */
    sequencerUrl: string;
    /** Milliseconds between asks for the sequencer's head. Default 100. */
    pollMs?: number;
    /**
     * The sequencer's flashblock stream (ws:// or wss://), applied to this node's `pending`;
     * default: its `/flashblocks` on the RPC URL's host; false: sealed blocks only.
     */
    flashblocksUrl?: string | false;
    /** Flashblocks kept for blocks not imported yet. Default 64. */
    maxBufferedFlashblocks?: number;
    /** Largest stream message accepted, compressed or not (bytes). Default 16 MiB. */
    maxFlashblockBytes?: number;
  };
}

export const defaultChainNodeOptions: ChainNodeOptions = {
  host: '127.0.0.1',
  port: 8545,
  dataDir: './.wharf',
  chainId: 31337n,
  blockTime: 2,
  flashblockInterval: 200,
  mining: true,
  pendingNulls: false,
  gasLimit: 60_000_000n,
  accounts: 10,
  mnemonic: 'test test test test test test test test test test test junk',
  balance: 10_000n * 10n ** 18n,
  baseFee: 1_000_000_000n,
  limits: defaultRpcLimits,
};

/** A running chain node. */
export interface ChainNode {
  /** http://host:port — JSON-RPC over HTTP POST. */
  url: string;
  /** ws://host:port — JSON-RPC over WebSocket (and /flashblocks). */
  wsUrl: string;
  chainId: bigint;
  accounts: DevAccount[];
  /**
   * Kernel ids (Linux) of the node's threads that flashblocks, submissions or reads wait for (the
   * journal's writer, the sender recovery thread, the front threads): a host that lowers its
   * helper threads' priority leaves these alone (decisions 0011, 0342, 0400).
   */
  deadlineThreadIds?: number[];
  /** Stops serving, flushes storage and closes it. */
  close(): Promise<void>;
}
