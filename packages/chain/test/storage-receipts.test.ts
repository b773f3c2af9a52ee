/**
 * Receipts as stored (decision 0421): without the logs bloom, read back as the consensus
 * encoding byte for byte; a block stored before 0421 (blooms kept) is read as it was.
 */
import { RLP } from '@ethereumjs/rlp';
import { Bloom, encodeReceipt as vmEncodeReceipt } from '@ethereumjs/vm';
import { beforeAll, describe, expect, it } from 'vitest';
import { initKeccak } from '../src/crypto/keccak.js';
import {
  decodeReceiptList,
  decodeStoredReceipts,
  encodeReceipt,
  encodeReceiptList,
  type StoredLog,
  type StoredReceipt,
} from '../src/storage/receiptCodec.js';

beforeAll(() => initKeccak());

const bytes = (n: number, fill: number) => new Uint8Array(n).fill(fill);

/** The bloom as @ethereumjs/vm computes it for a receipt (independent of the codec under test). */
function vmBloom(logs: StoredLog[]): Uint8Array {
  const b = new Bloom();
  for (const l of logs) {
    b.add(l.address);
    for (const t of l.topics) b.add(t);
  }
  return b.bitvector;
}

function receipt(type: number, logs: StoredLog[], extra: Partial<StoredReceipt> = {}): StoredReceipt {
  return { type, status: 1, cumulativeGasUsed: 21_000n, logs, bloom: vmBloom(logs), ...extra };
}

const manyLogs: StoredLog[] = Array.from({ length: 40 }, (_, i) => ({
  address: bytes(20, i + 1),
  topics: Array.from({ length: i % 5 }, (_, t) => bytes(32, 100 + i + t)),
  data: bytes(i * 7, i),
}));

const receipts: StoredReceipt[] = [
  receipt(0, []), // a legacy transfer
  receipt(2, []), // an EIP-1559 transfer
  receipt(2, [], { status: 0, cumulativeGasUsed: 0n }),
  receipt(1, manyLogs.slice(0, 3), { cumulativeGasUsed: 1n }),
  receipt(2, manyLogs, { cumulativeGasUsed: 29_999_999n }), // long list headers
  receipt(3, [{ address: bytes(20, 9), topics: [], data: bytes(70_000, 3) }]), // a payload over 65,535 bytes
  receipt(0, manyLogs.slice(5, 6), { status: undefined, postState: bytes(32, 0xaa) }), // pre-Byzantium
];

describe('consensus receipts', () => {
  it("are @ethereumjs/vm's encodings, byte for byte, at every header and quantity size", () => {
    const gases = [0n, 1n, 0x7fn, 0x80n, 0xffn, 0x100n, 21_000n, 2n ** 32n, 2n ** 64n - 1n];
    const all = [...receipts];
    for (const cumulativeGasUsed of gases)
      for (const status of [0, 1]) all.push(receipt(2, [], { status, cumulativeGasUsed }));
    for (const r of all) {
      const vm = vmEncodeReceipt(
        {
          ...(r.postState ? { stateRoot: r.postState } : { status: r.status as 0 | 1 }),
          cumulativeBlockGasUsed: r.cumulativeGasUsed,
          bitvector: r.bloom,
          logs: r.logs.map((l) => [l.address, l.topics, l.data]),
        } as Parameters<typeof vmEncodeReceipt>[0],
        r.type as Parameters<typeof vmEncodeReceipt>[1],
      );
      expect(encodeReceipt(r)).toEqual(vm);
    }
  });
});

describe('stored receipts', () => {
  it('are read back as the consensus encodings, byte for byte', () => {
    const consensus = receipts.map(encodeReceipt);
    const stored = encodeReceiptList(consensus);
    expect(decodeReceiptList(stored)).toEqual(consensus);
    const decoded = decodeStoredReceipts(stored);
    expect(decoded.map(encodeReceipt)).toEqual(consensus);
    expect(decoded.map((r) => r.bloom)).toEqual(receipts.map((r) => r.bloom));
  });

  it('leave the 256-byte bloom out: a transfer is stored in 5-6 bytes instead of ~262', () => {
    const transfer = encodeReceipt(receipt(2, []));
    expect(transfer.length).toBeGreaterThan(256);
    const stored = RLP.decode(encodeReceiptList([transfer])) as Uint8Array[];
    expect(stored[0].length).toBeLessThanOrEqual(transfer.length - 256);
    for (const [i, r] of receipts.entries()) {
      const c = encodeReceipt(r);
      const s = (RLP.decode(encodeReceiptList([c])) as Uint8Array[])[0];
      expect(s.length, `receipt ${i}`).toBeLessThanOrEqual(c.length - 256);
    }
  });

  it('reads a block stored before (blooms kept) as it was, a bloom that is not its logs’ included', () => {
    const consensus = receipts.map(encodeReceipt);
    // The old format: the consensus encodings as they are.
    const old = RLP.encode(consensus);
    expect(decodeReceiptList(old)).toEqual(consensus);
    expect(decodeStoredReceipts(old).map(encodeReceipt)).toEqual(consensus);
    // What was stored is what is answered, even if it is not what the logs would give.
    const odd = encodeReceipt(receipt(2, [], { bloom: bytes(256, 0xff) }));
    expect(decodeReceiptList(RLP.encode([odd]))).toEqual([odd]);
  });

  it('stores an empty block as an empty list', () => {
    expect(encodeReceiptList([])).toEqual(Uint8Array.of(0xc0));
    expect(decodeReceiptList(Uint8Array.of(0xc0))).toEqual([]);
  });
});
