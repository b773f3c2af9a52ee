// The subtree worker's messages (storage/subtreeMake.ts): the jobs the node packs and the answers
// the worker packs come back as they went, for every kind of job.
import { describe, expect, it } from 'vitest';
import { initKeccak, keccak256 } from '../src/crypto/keccak.js';
import {
  type MadeSubtree,
  pack,
  packJobs,
  type SubtreeJob,
  unpack,
  unpackJobs,
} from '../src/storage/subtreeMake.js';

const bytes = (n: number, fill: number) => new Uint8Array(n).fill(fill);

describe('the subtree worker messages', () => {
  it('packs jobs of the account trie and of storage tries, each way to keep', () => {
    const jobs: SubtreeJob[] = [
      // A depth-4 node of the account trie, read toward two keys, from three runs.
      {
        path: Uint8Array.of(1, 2, 3, 4),
        hash: bytes(32, 7),
        keep: [bytes(64, 1), Uint8Array.of(1, 2, 3, 4, 5, 6)],
        runs: [3, 9, 70_000],
      },
      // A stale depth-3 node of a storage trie: its top three levels.
      { owner: bytes(32, 9), path: Uint8Array.of(15, 0, 15), hash: bytes(32, 8), keep: 6, runs: [1] },
      // A reader that may go anywhere below; the root's own path is empty.
      { path: new Uint8Array(0), hash: bytes(32, 6), keep: Number.POSITIVE_INFINITY, runs: [] },
    ];
    const back = unpackJobs(packJobs(jobs));
    expect(back).toHaveLength(3);
    for (const [i, j] of jobs.entries()) {
      expect(back[i].owner && [...back[i].owner]).toEqual(j.owner && [...j.owner]);
      expect([...back[i].path]).toEqual([...j.path]);
      expect([...back[i].hash]).toEqual([...j.hash]);
      expect(back[i].runs).toEqual(j.runs);
      if (typeof j.keep === 'number') expect(back[i].keep).toBe(j.keep);
      else expect((back[i].keep as Uint8Array[]).map((k) => [...k])).toEqual(j.keep.map((k) => [...k]));
    }
    expect(unpackJobs(packJobs([]))).toEqual([]);
  });

  it('packs what it cannot spell as keeping more, never less', () => {
    const job = { path: Uint8Array.of(1), hash: bytes(32, 1), runs: [] };
    const keepOf = (keep: SubtreeJob['keep']) => unpackJobs(packJobs([{ ...job, keep }]))[0].keep;
    // A depth past every path keeps every node; below the top's, only the top.
    expect(keepOf(300)).toBe(Number.POSITIVE_INFINITY);
    expect(keepOf(-1)).toBe(0);
    // More keys than a u16 counts (a bulk update's walks through one node): all of them.
    expect(keepOf(Array.from({ length: 70_000 }, () => bytes(64, 2)))).toBe(Number.POSITIVE_INFINITY);
    // A path no state trie has is refused (the node makes such a job on its own thread).
    expect(() => packJobs([{ ...job, path: new Uint8Array(300), keep: 4 }])).toThrow(/too large/);
  });

  it("packs the answers: a node not there, and one made with its nodes' keccaks and paths", async () => {
    await initKeccak();
    const enc = bytes(532, 3);
    const made: MadeSubtree[] = [
      { leaves: 0 },
      { leaves: 12 },
      {
        leaves: 70_000,
        nodes: [
          [keccak256(enc), enc, Uint8Array.of(1, 2, 3, 4, 5)],
          [keccak256(bytes(40, 2)), bytes(40, 2), Uint8Array.of(1, 2, 3, 4)],
        ],
      },
    ];
    const back = unpack(pack(made), 3);
    expect(back[0]).toEqual({ leaves: 0 });
    expect(back[1]).toEqual({ leaves: 12 });
    expect(back[2].leaves).toBe(70_000);
    expect(back[2].nodes!.map(([h, e, p]) => [[...h], [...e], [...p]])).toEqual(
      made[2].nodes!.map(([h, e, p]) => [[...h], [...e], [...p]]),
    );
  });
});
