/**
 * The developer API of the spec (notifications-service.md), called with a project's API key:
 * the users list, one wallet's status, and send. The dashboard uses it for test sends.
 */
import { requestJson } from './http.js';

export interface AppUser {
  address: string;
  notificationsEnabled: boolean;
}

export interface DeliveryResult {
  walletAddress: string;
  sent: boolean;
  failureReason?: string;
}

export interface SendResponse {
  success: boolean;
  results: DeliveryResult[];
  sentCount: number;
  failedCount: number;
}

export interface SendInput {
  appUrl: string;
  walletAddresses: string[];
  title: string;
  message: string;
  targetPath?: string;
}

const base = '/api/v1/notifications';

export function createDeveloperApi(apiKey: string) {
  const headers = { 'x-api-key': apiKey };
  return {
    users: (appUrl: string, params: { cursor?: string; limit?: number; enabledOnly?: boolean } = {}) =>
      requestJson<{ success: boolean; users: AppUser[]; nextCursor?: string }>(`${base}/app/users`, {
        headers,
        query: {
          app_url: appUrl,
          cursor: params.cursor,
          limit: params.limit,
          notification_enabled: params.enabledOnly ? 'true' : undefined,
        },
      }),
    status: (appUrl: string, walletAddress: string) =>
      requestJson<{ appPinned: boolean; notificationsEnabled: boolean }>(`${base}/app/user/status`, {
        headers,
        body: { app_url: appUrl, wallet_address: walletAddress },
      }),
    send: (input: SendInput) =>
      requestJson<SendResponse>(`${base}/send`, {
        headers,
        body: {
          app_url: input.appUrl,
          wallet_addresses: input.walletAddresses,
          title: input.title,
          message: input.message,
          ...(input.targetPath ? { target_path: input.targetPath } : {}),
        },
      }),
  };
}

export type DeveloperApi = ReturnType<typeof createDeveloperApi>;

/** The three notification operations of one project, however they are authorized. */
export interface NotificationsApi {
  users: DeveloperApi['users'];
  status: DeveloperApi['status'];
  send: DeveloperApi['send'];
}
