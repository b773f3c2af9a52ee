/**
 * Sign-In with Ethereum (EIP-4361) against the platform server: ask a nonce, sign the message
 * with the local account, trade the signature for a bearer token. The domain and URI are this
 * page's, which is what the server checks (the Host the request came to).
 */
import { createSiweMessage } from 'viem/siwe';
import { ApiError, requestJson } from '../api/http.js';
import type { Realm, Session, Signer } from './session.js';
import { accountOfSigner } from './signer.js';

const realmBase: Record<Realm, string> = {
  client: '/api/v1/client/auth',
  dashboard: '/api/v1/dashboard/auth',
};

export async function signInWithEthereum(realm: Realm, signer: Signer, chainId: number): Promise<Session> {
  const account = await accountOfSigner(signer);
  let base = realmBase[realm];
  let nonce: string;
  try {
    ({ nonce } = await requestJson<{ nonce: string }>(`${base}/nonce`, { body: {} }));
  } catch (error) {
    // A server without dashboard-specific auth signs developers in with the client API's SIWE
    // (the design: "the same machinery"); its session token then goes to the dashboard routes.
    if (!(error instanceof ApiError && error.status === 404) || realm === 'client') throw error;
    base = realmBase.client;
    ({ nonce } = await requestJson<{ nonce: string }>(`${base}/nonce`, { body: {} }));
  }
  const issuedAt = new Date();
  const message = createSiweMessage({
    address: account.address,
    chainId,
    domain: location.host,
    uri: location.origin,
    nonce,
    version: '1',
    statement: realm === 'client' ? 'Sign in to wharf.' : 'Sign in to the wharf developer dashboard.',
    issuedAt,
    expirationTime: new Date(issuedAt.getTime() + 10 * 60_000),
  });
  const signature = await account.signMessage({ message });
  const result = await requestJson<{ token: string; address: `0x${string}`; expiresAt: string }>(
    `${base}/verify`,
    { body: { message, signature } },
  );
  return {
    kind: 'wallet',
    token: result.token,
    address: result.address,
    expiresAt: result.expiresAt,
    signer,
  };
}
