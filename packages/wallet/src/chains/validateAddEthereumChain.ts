/**
 * Validation of the wallet_addEthereumChain (EIP-3085) parameter, with MetaMask's -32602
 * messages, except that `nativeCurrency.decimals` may be any integer 0..36 (EIP-3085).
 * Pure: no network, no state.
 */
import { walletErrors } from '../errors.js';

/** The largest chain id MetaMask accepts: an EIP-155 `v` (chainId * 2 + 36) stays a safe integer. */
export const MAX_SAFE_CHAIN_ID = 4503599627370476;

/** What the site passes as `params[0]`. */
export interface AddEthereumChainParameter {
  chainId: string;
  chainName: string;
  nativeCurrency: { name: string; symbol: string; decimals: number } | null;
  rpcUrls: string[];
  blockExplorerUrls?: string[] | null;
  iconUrls?: string[];
}

/** The parameter after validation: normalized chain id, cut name, the first usable URLs. */
export interface ValidatedChain {
  chainId: `0x${string}`;
  chainName: string;
  nativeCurrency: { name: string; symbol: string; decimals: number };
  rpcUrl: string;
  blockExplorerUrl?: string;
  iconUrls?: string[];
}

const UNKNOWN_TICKER = 'UNKNOWN';

/** `0x` followed by hex digits without leading zeros, not zero. */
export function isPrefixedFormattedHexString(value: unknown): value is `0x${string}` {
  return typeof value === 'string' && /^0x[1-9a-f][0-9a-f]*$/i.test(value);
}

export function isSafeChainId(chainId: number): boolean {
  return Number.isSafeInteger(chainId) && chainId > 0 && chainId <= MAX_SAFE_CHAIN_ID;
}

/** Validates a chain id (shared by add and switch) and answers it in lower case. */
export function validateChainId(chainId: unknown): `0x${string}` {
  const lower = typeof chainId === 'string' ? chainId.toLowerCase() : null;
  if (!isPrefixedFormattedHexString(lower)) {
    throw walletErrors.invalidParams(
      `Expected 0x-prefixed, unpadded, non-zero hexadecimal string 'chainId'. Received:\n${chainId}`,
    );
  }
  if (!isSafeChainId(Number.parseInt(lower, 16))) {
    throw walletErrors.invalidParams(
      `Invalid chain ID "${lower}": numerical value greater than max safe value. Received:\n${chainId}`,
    );
  }
  return lower;
}

/** A URL the wallet may call: https anywhere, http only on localhost or 127.0.0.1. */
export function isSecureOrLocalUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol === 'https:') return true;
  return url.protocol === 'http:' && (url.hostname === 'localhost' || url.hostname === '127.0.0.1');
}

/** Validates the `params` of wallet_switchEthereumChain and answers the chain id. */
export function validateSwitchEthereumChainParams(params: unknown): `0x${string}` {
  if (params === undefined) {
    throw walletErrors.invalidParams(`Expected params object or array. Received:\n${JSON.stringify(params)}`);
  }
  if (!Array.isArray(params)) {
    throw walletErrors.invalidParams(`Expected params array. Received:\n${JSON.stringify(params)}`);
  }
  const param = params[0];
  if (!param || typeof param !== 'object') {
    throw walletErrors.invalidParams(
      `Expected single, object parameter. Received:\n${JSON.stringify(params)}`,
    );
  }
  const { chainId, ...other } = param as Record<string, unknown>;
  if (Object.keys(other).length > 0) {
    throw walletErrors.invalidParams(
      `Received unexpected keys on object parameter. Unsupported keys:\n${Object.keys(other)}`,
    );
  }
  return validateChainId(chainId);
}

/** Validates `params[0]` of wallet_addEthereumChain, in MetaMask's order and words. */
export function validateAddEthereumChainParameter(param: unknown): ValidatedChain {
  if (!param || typeof param !== 'object' || Array.isArray(param)) {
    throw walletErrors.invalidParams(
      `Expected single, object parameter. Received:\n${JSON.stringify(param)}`,
    );
  }
  const { chainId, chainName, blockExplorerUrls, nativeCurrency, rpcUrls, iconUrls, ...other } =
    param as Record<string, unknown>;
  const otherKeys = Object.keys(other);
  if (otherKeys.length > 0) {
    throw walletErrors.invalidParams(
      `Received unexpected keys on object parameter. Unsupported keys:\n${otherKeys}`,
    );
  }

  const validChainId = validateChainId(chainId);

  const rpcUrlsMessage = `Expected an array with at least one valid string HTTPS url 'rpcUrls', Received:\n${rpcUrls}`;
  if (!Array.isArray(rpcUrls) || rpcUrls.length === 0) throw walletErrors.invalidParams(rpcUrlsMessage);
  const rpcUrl = rpcUrls.find(isSecureOrLocalUrl);
  if (!rpcUrl) throw walletErrors.invalidParams(rpcUrlsMessage);
  const blockExplorerUrl = Array.isArray(blockExplorerUrls)
    ? blockExplorerUrls.find(isSecureOrLocalUrl)
    : undefined;

  if (typeof chainName !== 'string' || !chainName) {
    throw walletErrors.invalidParams(`Expected non-empty string 'chainName'. Received:\n${chainName}`);
  }
  const cutName = chainName.length > 100 ? chainName.substring(0, 100) : chainName;

  let currency: ValidatedChain['nativeCurrency'] = {
    name: UNKNOWN_TICKER,
    symbol: UNKNOWN_TICKER,
    decimals: 18,
  };
  if (nativeCurrency !== null) {
    if (typeof nativeCurrency !== 'object' || Array.isArray(nativeCurrency)) {
      throw walletErrors.invalidParams(
        `Expected null or object 'nativeCurrency'. Received:\n${nativeCurrency}`,
      );
    }
    const { decimals, symbol, name } = nativeCurrency as Record<string, unknown>;
    if (typeof decimals !== 'number' || !Number.isInteger(decimals) || decimals < 0 || decimals > 36) {
      throw walletErrors.invalidParams(
        `Expected an integer from 0 to 36 for 'nativeCurrency.decimals' when 'nativeCurrency' is provided. Received: ${decimals}`,
      );
    }
    if (!symbol || typeof symbol !== 'string') {
      throw walletErrors.invalidParams(`Expected a string 'nativeCurrency.symbol'. Received: ${symbol}`);
    }
    if (symbol.length < 1 || symbol.length > 6) {
      throw walletErrors.invalidParams(
        `Expected 1-6 character string 'nativeCurrency.symbol'. Received:\n${symbol}`,
      );
    }
    currency = { name: typeof name === 'string' && name ? name : symbol, symbol, decimals };
  }

  const validIcons = Array.isArray(iconUrls)
    ? iconUrls.filter((u): u is string => typeof u === 'string')
    : undefined;
  return {
    chainId: validChainId,
    chainName: cutName,
    nativeCurrency: currency,
    rpcUrl,
    ...(blockExplorerUrl ? { blockExplorerUrl } : {}),
    ...(validIcons?.length ? { iconUrls: validIcons } : {}),
  };
}
