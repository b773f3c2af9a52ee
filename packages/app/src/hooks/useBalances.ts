/**
 * Balances read at `pending` and polled every flashblock-ish (250 ms), so a transfer shows up
 * the moment the builder pre-confirms it rather than when the block seals.
 */
import type { WalletProvider } from '@wharf/wallet';
import { useEffect, useState } from 'react';

export interface Balances {
  values: Record<string, bigint>;
  error: unknown;
  /** When each address's balance last changed (ms since epoch). */
  changedAt: Record<string, number>;
}

export function useBalances(
  provider: WalletProvider | undefined,
  addresses: string[],
  intervalMs = 250,
): Balances {
  const [state, setState] = useState<Balances>({ values: {}, error: undefined, changedAt: {} });
  const key = addresses.join(',');
  // biome-ignore lint/correctness/useExhaustiveDependencies: key stands for addresses
  useEffect(() => {
    if (!provider || addresses.length === 0) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout>;
    const poll = async () => {
      try {
        const results = await Promise.all(
          addresses.map((a) => provider.request({ method: 'eth_getBalance', params: [a, 'pending'] })),
        );
        if (stopped) return;
        setState((previous) => {
          const values: Record<string, bigint> = {};
          const changedAt = { ...previous.changedAt };
          addresses.forEach((a, i) => {
            values[a] = BigInt(results[i] as string);
            if (previous.values[a] !== undefined && previous.values[a] !== values[a])
              changedAt[a] = Date.now();
          });
          return { values, error: undefined, changedAt };
        });
      } catch (error) {
        if (!stopped) setState((previous) => ({ ...previous, error }));
      }
      if (!stopped) timer = setTimeout(poll, document.hidden ? 2000 : intervalMs);
    };
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [provider, key, intervalMs]);
  return state;
}
