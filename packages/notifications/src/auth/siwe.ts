/**
 * Sign-In with Ethereum (EIP-4361) checks for the client API: the message must name this host as
 * its domain, a URI on this host, the platform's chain id, a nonce this service issued (single
 * use, 5 minutes), and be within its validity times; the signature must be the address's — an
 * EOA's (ecrecover), or, with a chain node configured, a contract wallet's (ERC-1271 / ERC-6492).
 */
import { createPublicClient, type Hex, http, verifyMessage } from 'viem';
import { generateSiweNonce, parseSiweMessage } from 'viem/siwe';
import { invalid, ServiceError } from '../errors.js';

export interface SignInCheck {
  message: string;
  signature: string;
  /** The Host the request came to (the SIWE domain). */
  host: string;
  chainId: number;
  now: number;
}

export interface ParsedSignIn {
  address: string;
  nonce: string;
}

export type SignatureVerifier = (input: {
  address: Hex;
  message: string;
  signature: Hex;
}) => Promise<boolean>;

function reject(message: string): ServiceError {
  return new ServiceError('SESSION_INVALID', `sign-in failed: ${message}`);
}

/** Checks the message's fields (not the nonce's freshness, which the store decides). */
export function checkSignInMessage(input: SignInCheck): ParsedSignIn {
  const fields = parseSiweMessage(input.message);
  if (
    !fields.address ||
    !fields.domain ||
    !fields.nonce ||
    !fields.uri ||
    !fields.version ||
    !fields.chainId
  ) {
    throw reject('the message is not an EIP-4361 message');
  }
  if (fields.domain.toLowerCase() !== input.host.toLowerCase()) {
    throw reject(`domain ${fields.domain} is not this service (${input.host})`);
  }
  let uriHost: string;
  try {
    uriHost = new URL(fields.uri).host;
  } catch {
    throw reject('uri is not a URL');
  }
  if (uriHost.toLowerCase() !== input.host.toLowerCase())
    throw reject(`uri ${fields.uri} is not on ${input.host}`);
  if (fields.chainId !== input.chainId) throw reject(`chain id ${fields.chainId} is not ${input.chainId}`);
  if (fields.expirationTime && fields.expirationTime.getTime() <= input.now)
    throw reject('the message has expired');
  if (fields.notBefore && fields.notBefore.getTime() > input.now)
    throw reject('the message is not valid yet');
  return { address: fields.address, nonce: fields.nonce };
}

/** ecrecover only (no chain node configured). */
export const eoaVerifier: SignatureVerifier = ({ address, message, signature }) =>
  verifyMessage({ address, message, signature }).catch(() => false);

/** EOAs, ERC-1271 contract wallets and ERC-6492 counterfactual ones, through the chain node. */
export function chainVerifier(rpcUrl: string): SignatureVerifier {
  const client = createPublicClient({ transport: http(rpcUrl) });
  return ({ address, message, signature }) =>
    client.verifyMessage({ address, message, signature }).catch(() => false);
}

export async function verifySignature(
  verifier: SignatureVerifier,
  parsed: ParsedSignIn,
  message: string,
  signature: string,
): Promise<void> {
  if (!/^0x[0-9a-fA-F]*$/.test(signature)) throw reject('signature must be 0x-prefixed hex');
  const ok = await verifier({ address: parsed.address as Hex, message, signature: signature as Hex });
  if (!ok) throw reject(`the signature is not ${parsed.address}'s`);
}

/** A sign-in nonce lives 5 minutes and is used once (app users and dashboard developers alike). */
export const signInNonceTtlMs = 5 * 60 * 1000;

/** What `acceptSignIn` needs: the verifier, the chain the message must name, nonces, a clock. */
export interface SignInDeps {
  verifier: SignatureVerifier;
  chainId: number;
  clock: () => number;
  sessions: {
    addNonce(nonce: string, expiresAt: number): Promise<void>;
    consumeNonce(nonce: string, now: number): Promise<boolean>;
  };
}

/** A fresh nonce for the EIP-4361 message to name (GET .../nonce). */
export async function issueSignInNonce(
  deps: Pick<SignInDeps, 'sessions' | 'clock'>,
): Promise<{ nonce: string }> {
  const nonce = generateSiweNonce();
  await deps.sessions.addNonce(nonce, deps.clock() + signInNonceTtlMs);
  return { nonce };
}

/**
 * The whole sign-in check shared by the app's users and the dashboard's developers: the body
 * (`message`, an EIP-4361 message for `host`, and its `signature`), the signature (EOA or
 * ERC-1271), then the nonce, consumed once. Returns the signer and the time of the check; the
 * caller opens its own kind of session.
 */
export async function acceptSignIn(
  deps: SignInDeps,
  body: unknown,
  host: string,
): Promise<{ parsed: ParsedSignIn; now: number }> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw invalid('body', 'must be a JSON object');
  const { message, signature } = body as Record<string, unknown>;
  if (typeof message !== 'string' || message === '')
    throw invalid('message', 'is required (an EIP-4361 message)');
  if (typeof signature !== 'string' || signature === '') throw invalid('signature', 'is required');
  const now = deps.clock();
  const parsed = checkSignInMessage({ message, signature, host, chainId: deps.chainId, now });
  await verifySignature(deps.verifier, parsed, message, signature);
  if (!(await deps.sessions.consumeNonce(parsed.nonce, now))) {
    throw new ServiceError('SESSION_INVALID', 'sign-in failed: the nonce is unknown, used or expired');
  }
  return { parsed, now };
}
