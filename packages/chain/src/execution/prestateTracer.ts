/**
 * geth's prestateTracer: the accounts a transaction touched, as they were before it.
 *
 *   default:  { "0x<addr>": { balance, nonce?, code?, storage? } }
 *   diffMode: { pre: { ...changed accounts before }, post: { ...only what changed, after } }
 *
 * Touched = read by the execution (sender, recipient, coinbase, every account and slot the EVM
 * looked at): a StateReader between the transaction's overlay and the state below records the
 * first read of each account and slot. Fields as geth's (eth/tracers/native/prestate.go):
 * `balance` hex (always), `nonce` a JSON number left out when 0, `code` left out when empty,
 * `storage` 32-byte words. In diffMode an account that did not change is in neither side, a
 * slot that did not change is left out, a zero slot is left out of `pre` (and of `post`), and
 * a deleted account stays in `pre` only. Accounts the transaction created are not in `pre`.
 */
import { type Account, KECCAK256_NULL } from '@ethereumjs/util';
import { bytesToHex, equalBytes, hexToBytes, pad32 } from '../primitives/hex.js';
import { readAccountKeyed, type StateReader } from '../state/stateReader.js';

export interface PrestateConfig {
  diffMode?: boolean;
}

export interface PrestateAccount {
  balance?: string;
  nonce?: number;
  code?: string;
  storage?: Record<string, string>;
}

interface Seen {
  account?: Account;
  code: Uint8Array;
  /** slot (0x 32-byte hex) -> value before (32-byte hex) */
  slots: Map<string, string>;
}

const word = (v: Uint8Array) => bytesToHex(pad32(v));

/** Records what is read through it. Put it under the transaction's JournaledState. */
export class RecordingReader implements StateReader {
  readonly seen = new Map<string, Seen>();
  private readonly pendingCode = new Map<string, Promise<void>>();

  constructor(private readonly inner: StateReader) {}

  readAccount(address: Uint8Array): Promise<Account | undefined> {
    return this.readAccountKeyed(bytesToHex(address), address);
  }

  async readAccountKeyed(key: string, address: Uint8Array): Promise<Account | undefined> {
    const a = await readAccountKeyed(this.inner, key, address);
    if (!this.seen.has(key)) {
      const s: Seen = { account: a, code: new Uint8Array(0), slots: new Map() };
      this.seen.set(key, s);
      if (a && !equalBytes(a.codeHash, KECCAK256_NULL))
        this.pendingCode.set(
          key,
          this.inner.readCode(a.codeHash).then((c) => {
            s.code = c;
          }),
        );
    }
    return a;
  }

  async readStorage(address: Uint8Array, slot: Uint8Array): Promise<Uint8Array> {
    const v = await this.inner.readStorage(address, slot);
    const key = bytesToHex(address);
    if (!this.seen.has(key)) await this.readAccountKeyed(key, address);
    const s = this.seen.get(key)!;
    const sk = bytesToHex(pad32(slot));
    if (!s.slots.has(sk)) s.slots.set(sk, word(v));
    return v;
  }

  readCode(codeHash: Uint8Array): Promise<Uint8Array> {
    return this.inner.readCode(codeHash);
  }

  /** Makes sure every recorded account's code has been read. */
  async settled(): Promise<void> {
    await Promise.all(this.pendingCode.values());
  }
}

function formatAccount(
  a: Account | undefined,
  code: Uint8Array,
  slots?: Map<string, string>,
): PrestateAccount {
  const out: PrestateAccount = { balance: `0x${(a?.balance ?? 0n).toString(16)}` };
  if (a && a.nonce > 0n) out.nonce = Number(a.nonce);
  if (code.length) out.code = bytesToHex(code);
  if (slots?.size) out.storage = Object.fromEntries(slots);
  return out;
}

/**
 * The tracer's result once the transaction has run: `after` is the state after it (the
 * transaction's overlay), `created` the addresses it created (0x-lowercase).
 */
export async function prestateResult(
  rec: RecordingReader,
  after: StateReader,
  config: PrestateConfig,
  created: Set<string>,
): Promise<
  | Record<string, PrestateAccount>
  | { pre: Record<string, PrestateAccount>; post: Record<string, PrestateAccount> }
> {
  await rec.settled();
  const keys = [...rec.seen.keys()].sort();
  const isNew = (k: string) => created.has(k) && !rec.seen.get(k)!.account;
  if (!config.diffMode) {
    const out: Record<string, PrestateAccount> = {};
    for (const k of keys) {
      if (isNew(k)) continue;
      const s = rec.seen.get(k)!;
      out[k] = formatAccount(s.account, s.code, s.slots);
    }
    return out;
  }
  const pre: Record<string, PrestateAccount> = {};
  const post: Record<string, PrestateAccount> = {};
  for (const k of keys) {
    const s = rec.seen.get(k)!;
    const address = hexToBytes(k);
    const now = await after.readAccount(address);
    if (!now) {
      // Deleted (or never there): kept in pre only, if it was there.
      if (s.account) pre[k] = formatAccount(s.account, s.code, nonZero(s.slots));
      continue;
    }
    const p: PrestateAccount = {};
    let modified = false;
    const before = s.account;
    if (now.balance !== (before?.balance ?? 0n)) {
      modified = true;
      p.balance = `0x${now.balance.toString(16)}`;
    }
    if (now.nonce !== (before?.nonce ?? 0n)) {
      modified = true;
      p.nonce = Number(now.nonce);
    }
    const code = equalBytes(now.codeHash, KECCAK256_NULL)
      ? new Uint8Array(0)
      : await after.readCode(now.codeHash);
    if (!equalBytes(code, s.code)) {
      modified = true;
      if (code.length) p.code = bytesToHex(code);
    }
    const preSlots = new Map<string, string>();
    const postSlots: Record<string, string> = {};
    for (const [slot, was] of s.slots) {
      const v = word(await after.readStorage(address, hexToBytes(slot)));
      if (v === was) continue;
      modified = true;
      if (!/^0x0*$/.test(was)) preSlots.set(slot, was);
      if (!/^0x0*$/.test(v)) postSlots[slot] = v;
    }
    if (!modified) continue;
    if (Object.keys(postSlots).length) p.storage = postSlots;
    post[k] = p;
    if (!isNew(k)) pre[k] = formatAccount(before, s.code, preSlots);
  }
  return { pre, post };
}

function nonZero(slots: Map<string, string>): Map<string, string> {
  return new Map([...slots].filter(([, v]) => !/^0x0*$/.test(v)));
}
