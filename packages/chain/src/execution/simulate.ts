/**
 * eth_simulateV1: a chain of hypothetical blocks on top of a sealed one, with block and state
 * overrides, as geth builds them (block numbers and timestamps checked and defaulted, gaps
 * filled with empty blocks, base fee 0 unless validating, the EIP-4788/2935 system writes, one
 * gas pool of 50M for the whole simulation). Nothing is written to storage.
 */
import { Block, type BlockHeader, createBlock, createBlockHeader } from '@ethereumjs/block';
import { createTx, type TypedTransaction } from '@ethereumjs/tx';
import { Address } from '@ethereumjs/util';
import { encodeReceipt, runTx } from '@ethereumjs/vm';
import { bigintToBytes, bytesToHex, pad32 } from '../primitives/hex.js';
import { localRoot } from '../state/forkState.js';
import { JournaledState } from '../state/journaledState.js';
import type { StateReader } from '../state/stateReader.js';
import { computeStateRoot } from '../state/stateRoot.js';
import { decodeReceipt, type StoredReceipt } from '../storage/receiptCodec.js';
import { orderedTrieRoot } from '../trie/index.js';
import type { CallArgs, CallLimits } from './call.js';
import { revertError } from './call.js';
import { EvmTimeout } from './evmBudget.js';
import type { ChainContext } from './chainContext.js';
import { type SimLog, SimLogTracer, type TracedEvm } from './simulateLogs.js';
import { ErrorCode } from '../primitives/errorCodes.js';
import { SimulateError } from './simulateError.js';
import { type AccountOverride, applyStateOverrides, movePrecompiles } from './stateOverrides.js';
import { createVm } from './vmFactory.js';

export { SimulateError } from './simulateError.js';
export type { AccountOverride } from './stateOverrides.js';

export interface BlockOverrides {
  number?: bigint;
  time?: bigint;
  gasLimit?: bigint;
  feeRecipient?: Uint8Array;
  prevRandao?: Uint8Array;
  baseFeePerGas?: bigint;
  blobBaseFee?: bigint;
}

export interface SimBlockInput {
  blockOverrides?: BlockOverrides;
  stateOverrides?: Map<string, AccountOverride>;
  calls: CallArgs[];
}

export interface SimCallResult {
  returnData: Uint8Array;
  logs: SimLog[];
  gasUsed: bigint;
  maxUsedGas: bigint;
  status: number;
  error?: { code: number; message: string; data?: string };
}

export interface SimBlockResult {
  block: Block;
  senders: Uint8Array[];
  receipts: StoredReceipt[];
  calls: SimCallResult[];
}

const MAX_BLOCKS = 256n;
const TIMESTAMP_INCREMENT = 12n;
const BEACON_ROOTS = '0x000f3df6d732807ef1319fb7b8bb8522d0beac02';
const HISTORY = '0x0000f90827f1c53a10cb7a02335b175320002935';
function sanitize(base: BlockHeader, blocks: SimBlockInput[]): SimBlockInput[] {
  const out: SimBlockInput[] = [];
  let prevNumber = base.number;
  let prevTime = base.timestamp;
  for (const b of blocks) {
    const o: BlockOverrides = { ...(b.blockOverrides ?? {}) };
    o.number ??= prevNumber + 1n;
    if (o.number <= prevNumber)
      throw new SimulateError(
        ErrorCode.SimBlockNumberOrder,
        `block numbers must be in order: ${o.number} <= ${prevNumber}`,
      );
    if (o.number - base.number > MAX_BLOCKS)
      throw new SimulateError(ErrorCode.SimTooManyBlocks, 'too many blocks');
    for (let n = prevNumber + 1n; n < o.number; n++) {
      prevTime += TIMESTAMP_INCREMENT;
      out.push({ blockOverrides: { number: n, time: prevTime }, calls: [] });
    }
    prevNumber = o.number;
    if (o.time === undefined) o.time = prevTime + TIMESTAMP_INCREMENT;
    else if (o.time <= prevTime)
      throw new SimulateError(
        ErrorCode.SimTimestampOrder,
        `block timestamps must be in order: ${o.time} <= ${prevTime}`,
      );
    prevTime = o.time;
    out.push({ ...b, blockOverrides: o });
  }
  return out;
}

function txError(message: string): SimulateError {
  const m = message.split(' (block=')[0].split(' (vm hf=')[0];
  if (/INTRINSIC_GAS_TOO_LOW|lower than the minimum gas limit/.test(m))
    return new SimulateError(ErrorCode.SimIntrinsicGas, `intrinsic gas too low: ${m}`);
  if (/nonce.*too low|account has nonce of: \d+ tx has nonce of/.test(m)) {
    const r = /account has nonce of: (\d+) tx has nonce of: (\d+)/.exec(m);
    if (r && BigInt(r[2]) > BigInt(r[1]))
      return new SimulateError(ErrorCode.SimNonceTooHigh, `nonce too high: ${m}`);
    return new SimulateError(ErrorCode.SimNonceTooLow, `nonce too low: ${m}`);
  }
  if (/is less than the block's baseFeePerGas/.test(m))
    return new SimulateError(ErrorCode.SimFeeCapTooLow, `max fee per gas less than block base fee: ${m}`);
  if (/enough funds/.test(m))
    return new SimulateError(
      ErrorCode.SimInsufficientFunds,
      `insufficient funds for gas * price + value: ${m}`,
    );
  if (/gasLimit is too low|intrinsic/.test(m))
    return new SimulateError(ErrorCode.SimIntrinsicGas, `intrinsic gas too low: ${m}`);
  if (/nonce.*(max|2\^64)/i.test(m))
    return new SimulateError(ErrorCode.Internal, `nonce has max value: ${m}`);
  return new SimulateError(ErrorCode.Server, m);
}

export async function simulate(
  ctx: ChainContext,
  base: Block,
  baseState: StateReader,
  input: SimBlockInput[],
  opts: {
    validation: boolean;
    traceTransfers: boolean;
    limits: CallLimits;
    /**
     * The base is the block being built (`pending`): its state has no trie in storage to fold
     * the simulated changes into, so the simulated blocks' stateRoot is the zero hash.
     */
    noStateRoot?: boolean;
  },
): Promise<SimBlockResult[]> {
  const blocks = sanitize(base.header, input);
  const state = new JournaledState(baseState, async () => new Uint8Array(32));
  const results: SimBlockResult[] = [];
  let parent = base.header;
  let parentHash = base.hash();
  // geth: the calls of all blocks together get --rpc-gas-cap; a call asking for more gets what is left.
  let gasPool = opts.limits.gasCap > 0n ? opts.limits.gasCap : 2n ** 63n;
  const hashes = new Map<bigint, Uint8Array>();
  for (const b of blocks) {
    const o = b.blockOverrides!;
    const common = ctx.spec.common.copy();
    common.setHardforkBy({ blockNumber: o.number!, timestamp: o.time! });
    const london = common.isActivatedEIP(1559);
    let baseFee: bigint | undefined;
    if (london) baseFee = o.baseFeePerGas ?? (opts.validation ? parent.calcNextBaseFee() : 0n);
    const cancun = common.isActivatedEIP(4844);
    const excessBlobGas = cancun
      ? parent.common.isActivatedEIP(4844)
        ? parent.calcNextExcessBlobGas(common)
        : 0n
      : undefined;
    const headerData = {
      parentHash,
      number: o.number!,
      timestamp: o.time!,
      gasLimit: o.gasLimit ?? parent.gasLimit,
      coinbase: o.feeRecipient ?? parent.coinbase.bytes,
      difficulty: parent.difficulty === 0n ? 0n : parent.difficulty,
      mixHash: o.prevRandao ?? new Uint8Array(32),
      baseFeePerGas: baseFee,
      excessBlobGas,
      blobGasUsed: cancun ? 0n : undefined,
      parentBeaconBlockRoot: cancun ? new Uint8Array(32) : undefined,
    };
    // geth's simulator gives calls the whole 50M gas pool even where EIP-7825 caps transactions
    // at 2^24: transactions are built on a Common copy with its own, uncapped parameter table.
    const txCommon = common.copy() as unknown as {
      _params: Record<string, object>;
      _buildParamsCache(): void;
    };
    txCommon._params = { ...txCommon._params, 7825: { maxTransactionGasLimit: Number.MAX_SAFE_INTEGER } };
    txCommon._buildParamsCache();
    // blobBaseFee overrides what the header's excess blob gas gives (BLOBBASEFEE and the blob
    // fee charged), and leaves the header as it is: geth sets it in the EVM's block context only.
    const execBlock = withBlobBaseFee(
      createBlock({ header: headerData }, { common, skipConsensusFormatValidation: true, freeze: false }),
      o.blobBaseFee,
    );
    // Precompile moves last one block: each block starts from the fork's own precompiles (geth).
    const moved = new Map<string, Uint8Array>();
    await applyStateOverrides(state, b.stateOverrides, moved, common);
    // System writes that geth's simulator performs before the calls.
    if (common.isActivatedEIP(2935)) {
      const addr = new Address(Buffer.from(HISTORY.slice(2), 'hex'));
      if ((await state.getCode(addr)).length)
        await state.putStorage(addr, pad32(bigintToBytes((o.number! - 1n) % 8191n)), parentHash);
    }
    if (common.isActivatedEIP(4788)) {
      const addr = new Address(Buffer.from(BEACON_ROOTS.slice(2), 'hex'));
      if ((await state.getCode(addr)).length) {
        const idx = o.time! % 8191n;
        await state.putStorage(addr, pad32(bigintToBytes(idx)), bigintToBytes(o.time!));
        await state.putStorage(addr, pad32(bigintToBytes(idx + 8191n)), new Uint8Array(32));
      }
    }
    let zero: Block | undefined;
    const zeroFeeBlock = () =>
      (zero ??= withBlobBaseFee(
        createBlock(
          { header: { ...headerData, baseFeePerGas: 0n } },
          { common, skipConsensusFormatValidation: true, freeze: false },
        ),
        o.blobBaseFee,
      ));
    const vm = await createVm(ctx.spec.common, state, ctx.blocks, { number: o.number!, timestamp: o.time! });
    movePrecompiles(vm, moved);
    opts.limits.budget.attach(vm);
    // BLOCKHASH of simulated blocks.
    const chainGet = vm.blockchain as unknown as { getBlock(n: number): Promise<{ hash(): Uint8Array }> };
    const orig = chainGet.getBlock.bind(chainGet);
    chainGet.getBlock = async (n: number) => {
      const h = hashes.get(BigInt(n));
      return h ? { hash: () => h } : orig(n);
    };
    const txs: TypedTransaction[] = [];
    const senders: Uint8Array[] = [];
    const receipts: Uint8Array[] = [];
    const calls: SimCallResult[] = [];
    let gasUsed = 0n;
    let blobGasUsed = 0n;
    const logTracer = new SimLogTracer(vm.evm as TracedEvm, opts.traceTransfers);
    for (const call of b.calls) {
      await opts.limits.budget.check();
      const from = call.from ?? new Uint8Array(20);
      const nonce = call.nonce ?? (await state.readAccount(from))?.nonce ?? 0n;
      const remaining = execBlock.header.gasLimit - gasUsed;
      let gas = call.gas ?? (remaining < gasPool ? remaining : gasPool);
      if (gasUsed + gas > execBlock.header.gasLimit)
        throw new SimulateError(
          ErrorCode.SimBlockGasLimit,
          `block gas limit reached: ${gasUsed} >= ${execBlock.header.gasLimit}`,
        );
      if (gas > gasPool) gas = gasPool;
      const txData: Record<string, unknown> = {
        type: call.authorizationList ? 4 : call.blobVersionedHashes ? 3 : call.gasPrice !== undefined ? 0 : 2,
        nonce,
        gasLimit: gas,
        to: call.to ?? undefined,
        value: call.value ?? 0n,
        data: call.data ?? new Uint8Array(0),
        chainId: ctx.spec.chainId,
        accessList: (call.accessList ?? []).map((e) => [e.address, e.storageKeys]),
        v: 0n,
        r: 0n,
        s: 0n,
      };
      if (txData.type === 0) txData.gasPrice = call.gasPrice;
      else {
        txData.maxFeePerGas = call.maxFeePerGas ?? 0n;
        txData.maxPriorityFeePerGas = call.maxPriorityFeePerGas ?? 0n;
      }
      if (txData.type === 3) {
        txData.blobVersionedHashes = call.blobVersionedHashes;
        txData.maxFeePerBlobGas = call.maxFeePerBlobGas ?? 0n;
      }
      if (txData.type === 4)
        txData.authorizationList = call.authorizationList!.map((a) => [
          bigintToBytes(a.chainId),
          a.address,
          bigintToBytes(a.nonce),
          bigintToBytes(a.yParity),
          bigintToBytes(a.r),
          bigintToBytes(a.s),
        ]);
      if (txData.type === 0) delete txData.accessList;
      const MAX_NONCE = 2n ** 64n - 1n;
      if (nonce >= MAX_NONCE) {
        if (opts.validation)
          throw new SimulateError(ErrorCode.Internal, `nonce has max value: nonce ${nonce}`);
        txData.nonce = 0n;
      }
      let tx: TypedTransaction;
      try {
        tx = createTx(txData as never, { common: txCommon as never, freeze: false });
      } catch (e) {
        throw new SimulateError(ErrorCode.InvalidParams, (e as Error).message.split(' (')[0]);
      }
      // @ethereumjs refuses a nonce of 2^64-1 at construction; geth simulates it.
      if (nonce >= MAX_NONCE) (tx as unknown as { nonce: bigint }).nonce = nonce;
      const sender = new Address(from);
      (tx as { getSenderAddress: () => Address }).getSenderAddress = () => sender;
      // Without validation geth lets any fee run (NoBaseFee): below the base fee, run at base fee 0.
      const feeCap = call.gasPrice ?? call.maxFeePerGas ?? 0n;
      const runBlock =
        !opts.validation && baseFee !== undefined && feeCap < baseFee ? zeroFeeBlock() : execBlock;
      const unmask = await state.maskSenderCode(from);
      let r: Awaited<ReturnType<typeof runTx>>;
      try {
        r = await logTracer.trace(() =>
          runTx(vm, {
            tx,
            block: runBlock,
            blockGasUsed: gasUsed,
            skipNonce: !opts.validation,
            skipHardForkValidation: true,
            skipBlockGasLimitValidation: true,
          }),
        );
      } catch (e) {
        if (e instanceof EvmTimeout) throw e;
        throw txError((e as Error).message);
      } finally {
        unmask();
      }
      // geth's nonces are uint64: an increment past 2^64-1 wraps to 0.
      const after = await state.readAccount(from);
      if (after && after.nonce >= 2n ** 64n)
        await state.modifyAccountFields(sender, { nonce: after.nonce % 2n ** 64n });
      gasUsed += r.totalGasSpent;
      gasPool -= r.totalGasSpent;
      blobGasUsed += r.blobGasUsed ?? 0n;
      txs.push(tx);
      senders.push(from);
      const enc = encodeReceipt(r.receipt, tx.type);
      receipts.push(enc);
      const failed = r.execResult.exceptionError !== undefined;
      const res: SimCallResult = {
        returnData: failed ? new Uint8Array(0) : r.execResult.returnValue,
        logs: logTracer.logs(r.receipt.logs as [Uint8Array, Uint8Array[], Uint8Array][], failed),
        gasUsed: r.totalGasSpent,
        maxUsedGas: r.totalGasSpent + r.gasRefund,
        status: failed ? 0 : 1,
      };
      if (failed) {
        const err = r.execResult.exceptionError!.error;
        if (err === 'revert') {
          const e = revertError(r.execResult.returnValue);
          res.error = {
            code: ErrorCode.ExecutionReverted,
            message: e.message,
            data: bytesToHex(r.execResult.returnValue),
          };
        } else res.error = { code: ErrorCode.SimVmError, message: err };
      }
      calls.push(res);
    }
    // Before the merge geth's engine pays the proof-of-work block reward to the coinbase.
    if (!common.gteHardfork('paris')) {
      const reward = common.gteHardfork('constantinople')
        ? 2n * 10n ** 18n
        : common.gteHardfork('byzantium')
          ? 3n * 10n ** 18n
          : 5n * 10n ** 18n;
      const coinbase = execBlock.header.coinbase;
      const acct = await state.getAccount(coinbase);
      await state.modifyAccountFields(coinbase, { balance: (acct?.balance ?? 0n) + reward });
    }
    const root = opts.noStateRoot
      ? { root: new Uint8Array(32) }
      : await computeStateRoot(
          localRoot(base.header.stateRoot, ctx.fork),
          baseState,
          state.diff(),
          ctx.nodes,
        );
    const bloom = new Uint8Array(256);
    for (const enc of receipts) {
      const rb = decodeReceipt(enc).bloom;
      for (let i = 0; i < 256; i++) bloom[i] |= rb[i];
    }
    const header = createBlockHeader(
      {
        ...headerData,
        stateRoot: root.root,
        gasUsed,
        blobGasUsed: cancun ? blobGasUsed : undefined,
        transactionsTrie: orderedTrieRoot(txs.map((t) => t.serialize())),
        receiptTrie: orderedTrieRoot(receipts),
        logsBloom: bloom,
      },
      { common, skipConsensusFormatValidation: true },
    );
    // The Block constructor keeps our transaction objects (createBlock would rebuild and
    // re-validate them against the 2^24 cap).
    const block = new Block(header, txs, [], common.isActivatedEIP(4895) ? [] : undefined, { common });
    hashes.set(o.number!, block.hash());
    results.push({ block, senders, receipts: receipts.map(decodeReceipt), calls });
    parent = block.header;
    parentHash = block.hash();
  }
  return results;
}

function withBlobBaseFee(block: Block, fee: bigint | undefined): Block {
  if (fee !== undefined) block.header.getBlobGasPrice = () => fee;
  return block;
}
