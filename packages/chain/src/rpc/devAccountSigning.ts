/**
 * The dev accounts sign for the caller, as Anvil and Hardhat do: eth_sendTransaction (fills nonce,
 * gas, fees; signs; submits to the pool like any raw transaction), eth_sign, personal_sign and
 * eth_signTypedData_v4. Only the accounts derived from the node's mnemonic sign; an impersonated
 * account (anvil_impersonateAccount) sends without a key (eth_sendTransaction,
 * eth_sendUnsignedTransaction); any other sender is refused.
 */
import { createTx } from '@ethereumjs/tx';
import { keccak256 } from '../crypto/keccak.js';
import { estimateGas } from '../execution/call.js';
import { bytesToHex, concat, hexToBytes } from '../primitives/hex.js';
import { callBlockOf, parseCallArgs } from './callArgs.js';
import { stateAt } from './chainReads.js';
import { method, type Methods, type RpcContext } from './context.js';
import { callLimits } from './limits.js';
import { serverError } from './errors.js';
import type { Params } from './params.js';
import { signTyped } from 'micro-eth-signer';
import secp256k1 from 'secp256k1';

function keyOf(c: RpcContext, address: Uint8Array): Uint8Array {
  const hex = bytesToHex(address);
  const a = c.chain.spec.devAccounts.find((d) => d.address === hex);
  if (!a) throw serverError(`unknown account ${hex}: only the node's dev accounts sign`);
  return hexToBytes(a.privateKey);
}

/** EIP-191 personal message signature, 65 bytes r || s || v (27/28). */
function personalSign(key: Uint8Array, message: Uint8Array): string {
  const prefix = Buffer.from(`\x19Ethereum Signed Message:\n${message.length}`);
  const digest = keccak256(concat(prefix, message));
  const { signature, recid } = secp256k1.ecdsaSign(digest, key);
  return bytesToHex(concat(signature, Uint8Array.of(27 + recid)));
}

const TIP = 1_000_000_000n;

/** eth_sendTransaction / eth_sendUnsignedTransaction from an impersonated sender: no key needed. */
function sendImpersonated(c: RpcContext, args: ReturnType<typeof parseCallArgs> & { from: Uint8Array }) {
  return c.dev!.sendUnsigned({
    from: args.from,
    to: args.to ?? undefined,
    value: args.value,
    data: args.data,
    gas: args.gas,
    nonce: args.nonce,
    gasPrice: args.gasPrice,
    maxFeePerGas: args.maxFeePerGas,
    maxPriorityFeePerGas: args.maxPriorityFeePerGas,
    accessList: args.accessList?.map((e) => ({ address: e.address, storageKeys: e.storageKeys })),
  });
}

/** EIP-712 typed data as eth_signTypedData_v4 takes it: an object, or its JSON as a string. */
function typedDataParam(p: Params, i: number): Parameters<typeof signTyped>[0] {
  let v = p.raw(i);
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      p.fail(i, 'expected typed data (an object or its JSON)');
    }
  }
  if (typeof v !== 'object' || v === null) p.fail(i, 'expected typed data (an object or its JSON)');
  const o = v as Record<string, unknown>;
  if (typeof o.types !== 'object' || o.types === null) p.fail(i, 'types: missing');
  if (typeof o.primaryType !== 'string') p.fail(i, 'primaryType: missing');
  if (typeof o.message !== 'object' || o.message === null) p.fail(i, 'message: missing');
  // The domain's type is implied by the domain's fields when a client leaves it out.
  const types = { ...(o.types as Record<string, unknown>) };
  const domain = (o.domain ?? {}) as Record<string, unknown>;
  if (!types.EIP712Domain) {
    const order: [string, string][] = [
      ['name', 'string'],
      ['version', 'string'],
      ['chainId', 'uint256'],
      ['verifyingContract', 'address'],
      ['salt', 'bytes32'],
    ];
    types.EIP712Domain = order
      .filter(([k]) => domain[k] !== undefined)
      .map(([name, type]) => ({ name, type }));
  }
  return { types, primaryType: o.primaryType, domain, message: o.message } as never;
}

export const devAccountSigningMethods: Methods = {
  eth_signTypedData_v4: method(['address', 'typedData'], 2, (p, c) => {
    const key = keyOf(c, p.address(0));
    const typed = typedDataParam(p, 1);
    try {
      return signTyped(typed, bytesToHex(key));
    } catch (e) {
      return p.fail(1, (e as Error).message);
    }
  }),
  eth_sendUnsignedTransaction: method(['transaction'], 1, async (p: Params, c: RpcContext) => {
    const args = parseCallArgs(p.raw(0), 0);
    if (!args.from) p.fail(0, 'from: missing');
    if (!c.dev?.impersonating(args.from))
      throw serverError(`${bytesToHex(args.from)} is not impersonated: call anvil_impersonateAccount first`);
    return sendImpersonated(c, { ...args, from: args.from });
  }),
  eth_sendTransaction: method(['transaction'], 1, async (p: Params, c: RpcContext) => {
    const args = parseCallArgs(p.raw(0), 0);
    if (!args.from) p.fail(0, 'from: missing');
    const from = bytesToHex(args.from);
    const isDevAccount = c.chain.spec.devAccounts.some((d) => d.address === from);
    if (!isDevAccount && c.dev?.impersonating(args.from))
      return sendImpersonated(c, { ...args, from: args.from });
    const key = keyOf(c, args.from);
    const pending = await stateAt(c, { tag: 'pending' });
    const nonce = args.nonce ?? (await c.pool.pendingNonce(bytesToHex(args.from)));
    const gas =
      args.gas ??
      (await estimateGas(
        c.chain,
        pending.state,
        callBlockOf(pending),
        args,
        callLimits(c.limits, c.scheduler),
      ));
    const baseFee = c.reader.pending().baseFee;
    const legacy = args.gasPrice !== undefined;
    const tip = args.maxPriorityFeePerGas ?? TIP;
    const data: Record<string, unknown> = {
      type: legacy ? (args.accessList ? 1 : 0) : 2,
      nonce,
      gasLimit: gas,
      to: args.to ?? undefined,
      value: args.value ?? 0n,
      data: args.data ?? new Uint8Array(0),
      chainId: c.chain.spec.chainId,
    };
    if (legacy) data.gasPrice = args.gasPrice;
    else {
      data.maxPriorityFeePerGas = tip;
      data.maxFeePerGas = args.maxFeePerGas ?? baseFee * 2n + tip;
    }
    if (args.accessList) data.accessList = args.accessList.map((e) => [e.address, e.storageKeys]);
    const signed = createTx(data as never, { common: c.reader.pending().header.common }).sign(key);
    const accepted = await c.pool.add(signed.serialize());
    return accepted.hash;
  }),
  eth_sign: method(['address', 'message'], 2, (p, c) => personalSign(keyOf(c, p.address(0)), p.data(1))),
  personal_sign: method(['message', 'address'], 2, (p, c) => personalSign(keyOf(c, p.address(1)), p.data(0))),
};
