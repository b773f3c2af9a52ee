// Types of leveldb-log.mjs for the TypeScript tests (bench/test).
export interface LevelDbWrites {
  flushed: number;
  compacted: number;
  compactions: number;
}
export function levelDbWritesOf(text: string): LevelDbWrites;
export function levelDbWrites(dir: string): LevelDbWrites;
