/**
 * The chain as it moves: the block being built and the last sealed blocks. Prefers the node's
 * WebSocket (eth_subscribe newFlashblocks + newHeads); when that is refused or absent, polls
 * `eth_getBlockByNumber('pending')` every 200 ms.
 */
import { useEffect, useRef, useState } from 'react';
import { applySnapshot, type BuildingBlock, snapshotOf } from './blockModel.js';
import { chainRpc } from './chainRpc.js';

export interface SealedBlock {
  number: bigint;
  hash: string;
  txCount: number;
  gasUsed: bigint;
  gasLimit: bigint;
  timestamp: number;
}

export interface ChainFeed {
  building?: BuildingBlock;
  sealed: SealedBlock[];
  mode: 'connecting' | 'websocket' | 'polling';
  error?: unknown;
}

const KEEP = 8;

type RawBlock = Record<string, string | unknown[]>;

function toSealed(raw: RawBlock): SealedBlock {
  return {
    number: BigInt(raw.number as string),
    hash: raw.hash as string,
    txCount: (raw.transactions as unknown[]).length,
    gasUsed: BigInt(raw.gasUsed as string),
    gasLimit: BigInt(raw.gasLimit as string),
    timestamp: Number(BigInt(raw.timestamp as string)),
  };
}

export function useChainFeed(rpcUrl: string | undefined): ChainFeed {
  const [feed, setFeed] = useState<ChainFeed>({ sealed: [], mode: 'connecting' });
  const building = useRef<BuildingBlock | undefined>(undefined);

  useEffect(() => {
    if (!rpcUrl) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let socket: WebSocket | undefined;
    building.current = undefined;

    const onPending = (raw: unknown) => {
      const snapshot = snapshotOf(raw);
      if (!snapshot) return;
      const previousParent = building.current?.parentHash;
      building.current = applySnapshot(building.current, snapshot, Date.now());
      setFeed((f) => ({ ...f, building: building.current, error: undefined }));
      if (previousParent !== snapshot.parentHash) void refreshSealed();
    };

    let backfilled = false;
    const refreshSealed = async () => {
      try {
        const latest = (await chainRpc(rpcUrl).request({
          method: 'eth_getBlockByNumber',
          params: ['latest', false],
        })) as RawBlock | null;
        if (!latest || stopped) return;
        const head = toSealed(latest);
        setFeed((f) =>
          f.sealed.some((b) => b.hash === head.hash)
            ? f
            : { ...f, sealed: [head, ...f.sealed].slice(0, KEEP) },
        );
        if (!backfilled) {
          // First sight of the chain: fill the list with the blocks before the head.
          backfilled = true;
          const numbers: bigint[] = [];
          for (let n = head.number - 1n; n >= 0n && numbers.length < KEEP - 1; n--) numbers.push(n);
          const blocks = await Promise.all(
            numbers.map(
              (n) =>
                chainRpc(rpcUrl).request({
                  method: 'eth_getBlockByNumber',
                  params: [`0x${n.toString(16)}`, false],
                }) as Promise<RawBlock | null>,
            ),
          );
          if (stopped) return;
          setFeed((f) => {
            const all = [...f.sealed, ...blocks.filter((b) => b !== null).map(toSealed)];
            const unique = [...new Map(all.map((b) => [b.hash, b])).values()];
            unique.sort((a, b) => (a.number < b.number ? 1 : -1));
            return { ...f, sealed: unique.slice(0, KEEP) };
          });
        }
      } catch (error) {
        if (!stopped) setFeed((f) => ({ ...f, error }));
      }
    };

    const poll = async () => {
      try {
        onPending(
          await chainRpc(rpcUrl).request({ method: 'eth_getBlockByNumber', params: ['pending', false] }),
        );
      } catch (error) {
        if (!stopped) setFeed((f) => ({ ...f, error }));
      }
      if (!stopped) timer = setTimeout(poll, document.hidden ? 1000 : 200);
    };

    let polling = false;
    const startPolling = () => {
      if (stopped || polling) return;
      polling = true;
      setFeed((f) => ({ ...f, mode: 'polling' }));
      void poll();
    };

    // WebSocket first: the node serves JSON-RPC over WebSocket on the same port.
    try {
      const wsUrl = rpcUrl.replace(/^http/, 'ws');
      socket = new WebSocket(wsUrl);
      const pendingIds = new Map<number, 'newFlashblocks' | 'newHeads'>();
      const subs = new Map<string, 'newFlashblocks' | 'newHeads'>();
      let subscribed = false;
      const fallback = setTimeout(() => {
        if (!subscribed) {
          socket?.close();
          startPolling();
        }
      }, 1500);
      socket.onopen = () => {
        pendingIds.set(1, 'newFlashblocks');
        pendingIds.set(2, 'newHeads');
        socket?.send(
          JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newFlashblocks'] }),
        );
        socket?.send(
          JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'eth_subscribe', params: ['newHeads'] }),
        );
      };
      socket.onmessage = (event) => {
        const msg = JSON.parse(String(event.data)) as {
          id?: number;
          result?: string;
          error?: unknown;
          params?: { subscription: string; result: unknown };
        };
        if (msg.id !== undefined) {
          const kind = pendingIds.get(msg.id);
          if (kind === 'newFlashblocks') {
            if (msg.error || typeof msg.result !== 'string') {
              clearTimeout(fallback);
              socket?.close();
              startPolling();
              return;
            }
            subscribed = true;
            clearTimeout(fallback);
            setFeed((f) => ({ ...f, mode: 'websocket' }));
            void refreshSealed();
          }
          if (kind && typeof msg.result === 'string') subs.set(msg.result, kind);
          return;
        }
        if (!msg.params) return;
        const kind = subs.get(msg.params.subscription);
        if (kind === 'newFlashblocks') {
          // A payload that is not a pending block (another flashblocks format): poll instead.
          if (!snapshotOf(msg.params.result)) {
            socket?.close();
            return;
          }
          onPending(msg.params.result);
        }
        if (kind === 'newHeads') void refreshSealed();
      };
      socket.onerror = () => undefined;
      socket.onclose = () => {
        clearTimeout(fallback);
        // A dropped socket (or one never subscribed) falls back to polling.
        startPolling();
      };
    } catch {
      startPolling();
    }

    return () => {
      stopped = true;
      clearTimeout(timer);
      socket?.close();
    };
  }, [rpcUrl]);

  return feed;
}
