/**
 * EIP-4361's wallet rule: a Sign-In with Ethereum message must name the site that asks for the
 * signature. A phishing site that has a person sign a message for `wharf.example` would otherwise
 * get a signature it can replay there (issue 29, finding 8). `personal_sign` refuses such a
 * message before any dialog, with 4100 and a message naming both.
 *
 * Only sites (http and https origins) are held to it: the wallet's own origin (`wharf://wallet`,
 * scripts and the app's own use) is no site a person could be misled by.
 */
import { hexToString, isHex } from 'viem';
import { ProviderRpcError, walletErrorCodes } from './errors.js';

const prefix = /^(\S+) wants you to sign in with your Ethereum account:\r?\n/;

/** The text a personal_sign message shows (0x-hex is bytes, decoded as UTF-8). */
function textOf(message: string): string {
  if (!isHex(message) || message.length % 2 !== 0) return message;
  try {
    return hexToString(message);
  } catch {
    return message;
  }
}

/** The `domain` of an EIP-4361 message (scheme:// allowed before it, as EIP-4361 permits), or undefined. */
export function siweDomainOf(message: string): string | undefined {
  const match = prefix.exec(textOf(message));
  if (!match) return undefined;
  const domain = match[1]!;
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(domain);
  return (scheme ? domain.slice(scheme[0].length) : domain).toLowerCase();
}

/** Throws 4100 when `message` is a SIWE message for another host than `origin`'s. */
export function checkSiweDomain(origin: string, message: string): void {
  let host: string;
  try {
    const url = new URL(origin);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return;
    host = url.host.toLowerCase();
  } catch {
    return;
  }
  const domain = siweDomainOf(message);
  if (domain === undefined || domain === host) return;
  throw new ProviderRpcError(
    walletErrorCodes.unauthorized,
    `Sign-In with Ethereum refused: the message signs in to ${domain}, but ${origin} is asking (EIP-4361: the domain must be the asking site's)`,
    { domain, origin },
  );
}
