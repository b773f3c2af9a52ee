/**
 * The request rules of the developer API (spec: Endpoints, Limits; design: Notifications
 * decisions). Each parser takes the raw JSON body or query and returns typed, normalized values or
 * throws a 400 naming the field and the rule. Lengths are counted in Unicode code points; a text
 * that is empty after trimming counts as missing.
 */
import { invalid } from '../errors.js';
import { isAddress, toChecksumAddress } from './addresses.js';
import { normalizeAppUrl } from './appUrl.js';

export const limits = {
  titleMax: 30,
  messageMax: 200,
  targetPathMax: 500,
  addressesMin: 1,
  addressesMax: 1000,
  pageDefault: 100,
  pageMax: 500,
  dedupeWindowMs: 24 * 60 * 60 * 1000,
} as const;

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

export function codePointLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

function requireObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalid('body', 'must be a JSON object');
  }
  return body as Record<string, unknown>;
}

function requiredText(source: Record<string, unknown>, field: string): string {
  const value = source[field];
  if (value === undefined || value === null) throw invalid(field, 'is required');
  if (typeof value !== 'string') throw invalid(field, 'must be a string');
  if (value.trim() === '') throw invalid(field, 'is required');
  return value;
}

function appUrlOf(source: Record<string, unknown>): string {
  const raw = requiredText(source, 'app_url');
  const result = normalizeAppUrl(raw);
  if (!result.ok) throw invalid('app_url', result.reason);
  return result.appUrl;
}

function boundedText(source: Record<string, unknown>, field: string, max: number): string {
  const value = requiredText(source, field);
  if (codePointLength(value) > max) throw invalid(field, `must be at most ${max} characters`);
  return value;
}

export function parseSendRequest(body: unknown): SendRequest {
  const source = requireObject(body);
  const appUrl = appUrlOf(source);

  const list = source.wallet_addresses;
  if (list === undefined || list === null) throw invalid('wallet_addresses', 'is required');
  if (!Array.isArray(list)) throw invalid('wallet_addresses', 'must be an array of addresses');
  if (list.length < limits.addressesMin) throw invalid('wallet_addresses', 'must have at least 1 entry');
  if (list.length > limits.addressesMax) throw invalid('wallet_addresses', 'must have at most 1,000 entries');
  const seen = new Set<string>();
  const walletAddresses: string[] = [];
  for (let i = 0; i < list.length; i++) {
    const entry = list[i];
    if (!isAddress(entry)) {
      throw invalid(`wallet_addresses[${i}]`, 'must be a valid address (0x followed by 40 hex digits)');
    }
    const lower = entry.toLowerCase();
    if (seen.has(lower)) continue;
    seen.add(lower);
    walletAddresses.push(toChecksumAddress(lower));
  }

  const title = boundedText(source, 'title', limits.titleMax);
  const message = boundedText(source, 'message', limits.messageMax);

  let targetPath: string | null = null;
  const rawPath = source.target_path;
  if (rawPath !== undefined && rawPath !== null) {
    if (typeof rawPath !== 'string') throw invalid('target_path', 'must be a string');
    if (codePointLength(rawPath) > limits.targetPathMax) {
      throw invalid('target_path', `must be at most ${limits.targetPathMax} characters`);
    }
    if (!rawPath.startsWith('/')) throw invalid('target_path', "must start with '/'");
    if (rawPath.startsWith('//') || rawPath.startsWith('/\\')) {
      throw invalid('target_path', "must not start with '//' or '/\\' (it would leave the app's origin)");
    }
    targetPath = rawPath;
  }
  return { appUrl, walletAddresses, title, message, targetPath };
}

export function parseStatusRequest(body: unknown): StatusRequest {
  const source = requireObject(body);
  const appUrl = appUrlOf(source);
  const wallet = source.wallet_address;
  if (wallet === undefined || wallet === null || wallet === '')
    throw invalid('wallet_address', 'is required');
  if (!isAddress(wallet)) {
    throw invalid('wallet_address', 'must be a valid address (0x followed by 40 hex digits)');
  }
  return { appUrl, walletAddress: toChecksumAddress(wallet) };
}

export function parseUsersQuery(query: unknown): UsersQuery {
  const source = (typeof query === 'object' && query !== null ? query : {}) as Record<string, unknown>;
  const appUrl = appUrlOf(source);

  let enabledOnly = false;
  const flag = source.notification_enabled;
  if (flag !== undefined) {
    if (flag === 'true') enabledOnly = true;
    else if (flag !== 'false') throw invalid('notification_enabled', 'must be true or false');
  }

  let limit: number = limits.pageDefault;
  const rawLimit = source.limit;
  if (rawLimit !== undefined) {
    if (typeof rawLimit !== 'string' || !/^-?\d+$/.test(rawLimit)) {
      throw invalid('limit', 'must be an integer');
    }
    const n = Number(rawLimit);
    if (n < 1) throw invalid('limit', 'must be at least 1');
    limit = Math.min(n, limits.pageMax);
  }

  const cursor = source.cursor;
  if (cursor !== undefined && typeof cursor !== 'string') throw invalid('cursor', 'must be a string');
  return { appUrl, enabledOnly, limit, ...(cursor !== undefined && cursor !== '' ? { cursor } : {}) };
}
