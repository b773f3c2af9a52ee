/**
 * Sign-In with Ethereum (EIP-4361) checks for the client and dashboard APIs: the message must name
 * the platform's public origin (`publicOrigin.ts`; never the request's Host) as its domain and
 * URI, the platform's chain id, a nonce this service issued (single use, 5 minutes), and be within
 * its validity times; the signature must be the address's — an EOA's (ecrecover), or, with a
 * chain node configured, a contract wallet's (ERC-1271 / ERC-6492).
 *
 * Order: the message's fields, then the nonce (consumed), then the signature. The signature check
 * may call the chain (eth_call for ERC-1271), so nothing reaches it without a live nonce, and a
 * nonce buys at most one such call.
 */
import { randomBytes } from 'node:crypto';
import { createPublicClient, type Hex, http, verifyMessage } from 'viem';
import { parseSiweMessage } from 'viem/siwe';
import { invalid, ServiceError } from '../errors.js';
import { matchOrigin } from './publicOrigin.js';

export interface SignInCheck {
  message: string;
  signature: string;
  /** The origins the message may name (the configured public origin, or the loopback ones). */
  origins: readonly string[];
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
  if (!fields.domain) {
    // viem's parser does not take an IPv6 literal as the domain ([::1]:3000, one of the loopback
    // origins): read the message's first two lines (EIP-4361's prefix) ourselves.
    const prefix =
      /^(\[[0-9a-fA-F:]+\](?::\d{1,5})?) wants you to sign in with your Ethereum account:\n(0x[0-9a-fA-F]{40})\n/.exec(
        input.message,
      );
    if (prefix) {
      fields.domain = prefix[1];
      fields.address = prefix[2] as Hex;
    }
  }
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
  const origin = matchOrigin(input.origins, fields.domain, fields.uri);
  if ('error' in origin) throw reject(origin.error);
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

/** What `acceptSignIn` needs: the verifier, the origin and chain the message must name, nonces, a clock. */
export interface SignInDeps {
  verifier: SignatureVerifier;
  chainId: number;
  /** The origins a message may name; read per request (the listening port is known late). */
  publicOrigins: () => readonly string[];
  clock: () => number;
  sessions: {
    addNonce(nonce: string, expiresAt: number): Promise<void>;
    consumeNonce(nonce: string, now: number): Promise<boolean>;
  };
}

/** A fresh nonce for the EIP-4361 message to name: 128 bits from the CSPRNG, 32 hex digits. */
export async function issueSignInNonce(
  deps: Pick<SignInDeps, 'sessions' | 'clock'>,
): Promise<{ nonce: string }> {
  const nonce = randomBytes(16).toString('hex');
  await deps.sessions.addNonce(nonce, deps.clock() + signInNonceTtlMs);
  return { nonce };
}

/**
 * The whole sign-in check shared by the app's users and the dashboard's developers: the body
 * (`message`, an EIP-4361 message for the public origin, and its `signature`), the nonce,
 * consumed once whatever follows, then the signature (EOA or ERC-1271). Returns the signer and
 * the time of the check; the caller opens its own kind of session.
 */
export async function acceptSignIn(
  deps: SignInDeps,
  body: unknown,
): Promise<{ parsed: ParsedSignIn; now: number }> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw invalid('body', 'must be a JSON object');
  const { message, signature } = body as Record<string, unknown>;
  if (typeof message !== 'string' || message === '')
    throw invalid('message', 'is required (an EIP-4361 message)');
  if (typeof signature !== 'string' || signature === '') throw invalid('signature', 'is required');
  const now = deps.clock();
  if (!/^0x[0-9a-fA-F]*$/.test(signature)) throw reject('signature must be 0x-prefixed hex');
  const parsed = checkSignInMessage({
    message,
    signature,
    origins: deps.publicOrigins(),
    chainId: deps.chainId,
    now,
  });
  if (!(await deps.sessions.consumeNonce(parsed.nonce, now))) {
    throw new ServiceError('SESSION_INVALID', 'sign-in failed: the nonce is unknown, used or expired');
  }
  await verifySignature(deps.verifier, parsed, message, signature);
  return { parsed, now };
}
