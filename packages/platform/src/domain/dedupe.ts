/** The 24 h dedupe key: SHA-256 over (app URL, wallet address, title, message, target path). */
import { createHash } from 'node:crypto';

export function dedupeKey(input: {
  appUrl: string;
  walletAddress: string;
  title: string;
  message: string;
  targetPath: string | null;
}): string {
  return createHash('sha256')
    .update(JSON.stringify([input.appUrl, input.walletAddress, input.title, input.message, input.targetPath]))
    .digest('base64url');
}
