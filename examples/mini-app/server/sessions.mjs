// Sign in with Ethereum to this app's own back end (EIP-4361, viem's SIWE utilities): a one-time
// nonce, the signed message checked for this host, nonce and time, the signer recovered from the
// signature, then a random bearer token. A token rather than a cookie: the app runs in a frame on
// another site than the platform, where browsers drop third-party cookies.
import { randomBytes } from 'node:crypto';
import { verifyMessage } from 'viem';
import { generateSiweNonce, parseSiweMessage, validateSiweMessage } from 'viem/siwe';

const NONCE_TTL_MS = 5 * 60_000;
const SESSION_TTL_MS = 24 * 60 * 60_000;

export function createSessions() {
  /** @type {Map<string, number>} nonce -> expiry */
  const nonces = new Map();
  /** @type {Map<string, { address: string, expires: number }>} */
  const sessions = new Map();

  return {
    nonce() {
      const now = Date.now();
      for (const [n, expires] of nonces) if (expires < now) nonces.delete(n);
      const nonce = generateSiweNonce();
      nonces.set(nonce, now + NONCE_TTL_MS);
      return nonce;
    },

    /**
     * @param {unknown} message @param {unknown} signature @param {string} host this server's host
     * @returns {Promise<{ token: string, address: string }>} or throws an Error saying what is wrong
     */
    async signIn(message, signature, host) {
      if (typeof message !== 'string' || typeof signature !== 'string' || !/^0x[0-9a-fA-F]+$/.test(signature))
        throw new Error('message (the SIWE text) and signature (0x hex) are required');
      const fields = parseSiweMessage(message);
      const expires = fields.nonce ? nonces.get(fields.nonce) : undefined;
      if (!expires || expires < Date.now())
        throw new Error('unknown or expired nonce: ask /api/siwe/nonce again');
      if (!validateSiweMessage({ message: fields, domain: host }))
        throw new Error(`the message is not for ${host}`);
      const address = /** @type {`0x${string}`} */ (fields.address);
      const valid = await verifyMessage({
        address,
        message,
        signature: /** @type {`0x${string}`} */ (signature),
      });
      if (!valid) throw new Error('the signature is not from the address in the message');
      nonces.delete(/** @type {string} */ (fields.nonce));
      const token = randomBytes(24).toString('base64url');
      sessions.set(token, { address, expires: Date.now() + SESSION_TTL_MS });
      return { token, address };
    },

    /** @param {string | undefined} authorization @returns {string | undefined} the signed-in address */
    addressOf(authorization) {
      const token = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
      const session = token ? sessions.get(token) : undefined;
      return session && session.expires > Date.now() ? session.address : undefined;
    },
  };
}
