/**
 * The origin's chain: eth_chainId, net_version, wallet_switchEthereumChain (EIP-3326) and
 * wallet_addEthereumChain (EIP-3085: the endpoint is asked for its chain id before the person is).
 */
import { type ChainRecord, sameChainId, sameUrl } from '../chains/chainRegistry.js';
import { rpcCall } from '../chains/rpcClient.js';
import {
  validateAddEthereumChainParameter,
  validateSwitchEthereumChainParams,
} from '../chains/validateAddEthereumChain.js';
import { walletErrors } from '../errors.js';
import type { Handler } from './handler.js';

export const chainMethods: Record<string, Handler> = {
  eth_chainId: async (w, origin) => w.currentChain(origin).chainId,
  net_version: async (w, origin) => BigInt(w.currentChain(origin).chainId).toString(10),

  wallet_switchEthereumChain: async (w, origin, params, method) => {
    const chainId = validateSwitchEthereumChainParams(params);
    const chain = w.s.registry.get(chainId);
    if (!chain) throw walletErrors.unrecognizedChain(chainId);
    const fromChainId = w.currentChain(origin).chainId;
    if (w.deps.policy?.confirmChainSwitch && fromChainId !== chainId) {
      await w.approvals.ask({ type: 'switchEthereumChain', origin, method, params, chain, fromChainId });
    }
    await w.switchTo(origin, chainId);
    return null;
  },

  wallet_addEthereumChain: async (w, origin, params, method) => {
    const chain = validateAddEthereumChainParameter(Array.isArray(params) ? params[0] : undefined);
    const { registry } = w.s;
    const existing = registry.get(chain.chainId);
    if (existing && existing.nativeCurrency.symbol !== chain.nativeCurrency.symbol) {
      throw walletErrors.invalidParams(
        `nativeCurrency.symbol does not match currency symbol for a network the user already has added with the same chainId. Received:\n${chain.nativeCurrency.symbol}`,
      );
    }
    if (existing?.rpcUrls.some((url) => sameUrl(url, chain.rpcUrl))) {
      // Known chain and endpoint: nothing to ask; use that endpoint and switch to the chain.
      const index = existing.rpcUrls.findIndex((url) => sameUrl(url, chain.rpcUrl));
      if (index > 0) {
        const rpcUrls = [existing.rpcUrls[index], ...existing.rpcUrls.filter((_, i) => i !== index)];
        registry.upsert({ ...existing, rpcUrls });
        await w.saveChain(existing.chainId);
      }
      await w.switchTo(origin, chain.chainId);
      return null;
    }

    let endpointChainId: unknown;
    try {
      endpointChainId = await rpcCall(w.deps.fetch, chain.rpcUrl, 'eth_chainId', []);
    } catch (error) {
      throw walletErrors.internal(`Request for method 'eth_chainId on ${chain.rpcUrl} failed`, {
        networkErr: error instanceof Error ? error.message : String(error),
      });
    }
    if (!sameChainId(endpointChainId, chain.chainId)) throw walletErrors.unrecognizedChain(endpointChainId);

    const proposed: ChainRecord = existing
      ? {
          ...existing,
          rpcUrls: [chain.rpcUrl, ...existing.rpcUrls],
          ...mergeExplorer(existing.blockExplorerUrls, chain.blockExplorerUrl),
        }
      : {
          chainId: chain.chainId,
          chainName: chain.chainName,
          nativeCurrency: chain.nativeCurrency,
          rpcUrls: [chain.rpcUrl],
          ...(chain.blockExplorerUrl ? { blockExplorerUrls: [chain.blockExplorerUrl] } : {}),
          ...(chain.iconUrls ? { iconUrls: chain.iconUrls } : {}),
        };
    await w.approvals.ask({
      type: 'addEthereumChain',
      origin,
      method,
      params,
      chain: structuredClone(proposed),
      ...(existing ? { existingChain: structuredClone(existing) } : {}),
    });
    registry.upsert(proposed);
    await w.saveChain(proposed.chainId);
    await w.switchTo(origin, proposed.chainId);
    return null;
  },
};

/** A known chain's explorers with `url` first (added again: it becomes the one shown). */
function mergeExplorer(
  existing: string[] | undefined,
  url: string | undefined,
): { blockExplorerUrls?: string[] } {
  if (!url) return existing ? { blockExplorerUrls: existing } : {};
  const rest = (existing ?? []).filter((u) => !sameUrl(u, url));
  return { blockExplorerUrls: [url, ...rest] };
}
