export interface ImportProgress {
  imported: number;
  total: number;
}
export interface ImportChainOptions {
  dataDir: string;
  genesisPath: string;
  chainPath: string;
  onProgress?: (progress: ImportProgress) => void;
}
export interface ExportChainOptions {
  dataDir: string;
  outPath: string;
}

/** Imports a geth chain.rlp on top of a geth genesis.json, validating every block. */
export async function importChain(_options: ImportChainOptions): Promise<{ head: bigint }> {
  throw new Error('chain import has not landed yet');
}

/** Writes the stored chain (without genesis) as concatenated RLP blocks, as geth does. */
export async function exportChain(_options: ExportChainOptions): Promise<{ blocks: number }> {
  throw new Error('chain export has not landed yet');
}
