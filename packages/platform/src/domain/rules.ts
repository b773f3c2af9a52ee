/**
 * The developer API's requests as the services take them (spec: Endpoints; design: Notifications
 * decisions). The route schemas (`http/schemas.ts`, with `limits.ts`) have validated each field's
 * presence, type, size and format; here the values are normalized: app URLs, EIP-55 addresses
 * with duplicates removed in first-seen order, the page size clamped, an empty cursor dropped.
 */
import { invalid } from '../errors.js';
import { toChecksumAddress } from './addresses.js';
import { normalizeAppUrl } from './appUrl.js';
import { limits } from './limits.js';

export interface SendRequest {
  appUrl: string;
  /** EIP-55, duplicates removed, first-seen order. */
  walletAddresses: string[];
  title: string;
  message: string;
  targetPath: string | null;
}

export interface StatusRequest {
  appUrl: string;
  walletAddress: string;
}

export interface UsersQuery {
  appUrl: string;
  enabledOnly: boolean;
  cursor?: string;
  limit: number;
}

/** The validated wire bodies (snake_case), as the schemas describe them. */
export interface SendBody {
  app_url: string;
  wallet_addresses: string[];
  title: string;
  message: string;
  target_path?: string | null;
}
export interface StatusBody {
  app_url: string;
  wallet_address: string;
}
export interface UsersQuerystring {
  app_url: string;
  notification_enabled?: boolean;
  cursor?: string;
  limit?: number;
}

function appUrlOf(raw: string): string {
  const result = normalizeAppUrl(raw);
  if (!result.ok) throw invalid('app_url', result.reason);
  return result.appUrl;
}

export function parseSendRequest(body: SendBody): SendRequest {
  const seen = new Set<string>();
  const walletAddresses: string[] = [];
  for (const entry of body.wallet_addresses) {
    const lower = entry.toLowerCase();
    if (seen.has(lower)) continue;
    seen.add(lower);
    walletAddresses.push(toChecksumAddress(lower));
  }
  return {
    appUrl: appUrlOf(body.app_url),
    walletAddresses,
    title: body.title,
    message: body.message,
    targetPath: body.target_path ?? null,
  };
}

export function parseStatusRequest(body: StatusBody): StatusRequest {
  return { appUrl: appUrlOf(body.app_url), walletAddress: toChecksumAddress(body.wallet_address) };
}

export function parseUsersQuery(query: UsersQuerystring): UsersQuery {
  const cursor = query.cursor;
  return {
    appUrl: appUrlOf(query.app_url),
    enabledOnly: query.notification_enabled === true,
    limit: Math.min(query.limit ?? limits.pageDefault, limits.pageMax),
    ...(cursor !== undefined && cursor !== '' ? { cursor } : {}),
  };
}
