/**
 * Sign-In with Ethereum (EIP-4361) against the platform server through the SDK: ask a nonce,
 * sign the message with the local account, trade the signature for a bearer token. The domain
 * and URI are this page's, which is what the server checks (the Host the request came to).
 */
import { createDashboardClient, createPlatformClient, type SignInParameters } from '@wharf/sdk';
import type { Realm, Session, Signer } from './session.js';
import { accountOfSigner } from './signer.js';

export async function signInWithEthereum(realm: Realm, signer: Signer, chainId: number): Promise<Session> {
  const account = await accountOfSigner(signer);
  const parameters: SignInParameters = {
    address: account.address,
    chainId,
    statement: realm === 'client' ? 'Sign in to wharf.' : 'Sign in to the wharf developer dashboard.',
    signMessage: (message) => account.signMessage({ message }),
  };
  const result =
    realm === 'client'
      ? await createPlatformClient({ baseUrl: '' }).signIn(parameters)
      : await createDashboardClient({ baseUrl: '', role: 'developer' }).signIn(parameters);
  return {
    kind: 'wallet',
    token: result.token,
    address: result.address as `0x${string}`,
    expiresAt: result.expiresAt,
    signer,
  };
}
