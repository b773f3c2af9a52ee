/** SQL of SIWE nonces and bearer sessions. */
import type { Db } from '../database.js';

export class SessionsRepository {
  constructor(private readonly db: Db) {}

  async addNonce(nonce: string, expiresAt: number): Promise<void> {
    await this.db.insertInto('auth_nonces').values({ nonce, expires_at: expiresAt, used_at: null }).execute();
  }

  /** Marks the nonce used if it exists, is unused and unexpired; false otherwise. Atomic. */
  async consumeNonce(nonce: string, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('auth_nonces')
      .set({ used_at: now })
      .where('nonce', '=', nonce)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async addSession(tokenHash: string, address: string, now: number, expiresAt: number): Promise<void> {
    await this.db
      .insertInto('sessions')
      .values({ token_hash: tokenHash, address, created_at: now, expires_at: expiresAt })
      .execute();
  }

  async findSession(
    tokenHash: string,
    now: number,
  ): Promise<{ address: string; expiresAt: number } | undefined> {
    const row = await this.db
      .selectFrom('sessions')
      .select(['address', 'expires_at'])
      .where('token_hash', '=', tokenHash)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return row ? { address: row.address, expiresAt: row.expires_at } : undefined;
  }

  /** Ends a session (sign-out); false when there was none. */
  async deleteSession(tokenHash: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('sessions')
      .where('token_hash', '=', tokenHash)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Forgets expired nonces and sessions. */
  async sweep(now: number): Promise<void> {
    await this.db.deleteFrom('auth_nonces').where('expires_at', '<=', now).execute();
    await this.db.deleteFrom('sessions').where('expires_at', '<=', now).execute();
  }
}
