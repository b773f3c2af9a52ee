/**
 * Sign-In with Ethereum (EIP-4361) as the platform takes it, shared by the platform app's client
 * (`/api/v1/client/auth`) and the dashboard's (`/api/v1/dashboard/auth`): ask a nonce, sign the
 * message, trade the signature for a session token.
 */
import type { Requester } from './http.js';

export interface Session {
  token: string;
  /** EIP-55. */
  address: string;
  /** ISO 8601. */
  expiresAt: string;
}

export interface SignInParameters {
  /** The wallet's address, EIP-55 (as the wallet reports it). */
  address: string;
  /** The platform chain's id (31337 by default). */
  chainId: number;
  /** Signs an EIP-191 personal message (e.g. `personal_sign` of an EIP-1193 provider). */
  signMessage: (message: string) => Promise<string>;
  /** Default: the host of `baseUrl` (in a browser with `baseUrl` '', the page's host). */
  domain?: string;
  /** Default: `baseUrl` followed by '/'. */
  uri?: string;
  statement?: string;
  /** Default: 10 minutes from now. */
  expirationTime?: Date;
}

/** The EIP-4361 text, in the layout viem's createSiweMessage produces. */
export function formatSiweMessage(fields: {
  domain: string;
  address: string;
  statement?: string;
  uri: string;
  chainId: number;
  nonce: string;
  issuedAt: Date;
  expirationTime?: Date;
}): string {
  const statement = fields.statement ? `${fields.statement}\n` : '';
  let text =
    `${fields.domain} wants you to sign in with your Ethereum account:\n${fields.address}\n\n${statement}\n` +
    `URI: ${fields.uri}\nVersion: 1\nChain ID: ${fields.chainId}\nNonce: ${fields.nonce}\nIssued At: ${fields.issuedAt.toISOString()}`;
  if (fields.expirationTime) text += `\nExpiration Time: ${fields.expirationTime.toISOString()}`;
  return text;
}

/** The origin requests go to: `baseUrl`, or the page's own when it is '' (same origin). */
function originOf(baseUrl: string): URL {
  return new URL(baseUrl || (globalThis as { location?: { origin: string } }).location?.origin || '');
}

/** POST `<authPath>/nonce`, sign, POST `<authPath>/verify`; returns the session. */
export async function signInWithEthereum(
  requester: Requester,
  authPath: string,
  parameters: SignInParameters,
): Promise<Session> {
  const { nonce } = await requester.json<{ nonce: string }>({
    method: 'POST',
    path: `${authPath}/nonce`,
    body: {},
  });
  const origin = originOf(requester.baseUrl);
  const message = formatSiweMessage({
    domain: parameters.domain ?? origin.host,
    address: parameters.address,
    statement: parameters.statement,
    uri: parameters.uri ?? `${requester.baseUrl || origin.origin}/`,
    chainId: parameters.chainId,
    nonce,
    issuedAt: new Date(),
    expirationTime: parameters.expirationTime ?? new Date(Date.now() + 10 * 60 * 1000),
  });
  const signature = await parameters.signMessage(message);
  return requester.json<Session>({
    method: 'POST',
    path: `${authPath}/verify`,
    body: { message, signature },
  });
}
