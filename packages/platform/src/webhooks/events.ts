/**
 * The events a project's webhook receives, one per real transition of a wallet's state for one of
 * its apps (the spec's state table; Farcaster's mini-app events are the model):
 *
 *   not pinned                 -> pinned (either opt-in)  miniapp_added       (notificationsEnabled says which)
 *   pinned (either opt-in)     -> not pinned              miniapp_removed
 *   pinned, disabled           -> pinned, enabled         notifications_enabled
 *   pinned, enabled            -> pinned, disabled        notifications_disabled
 *   anything                   -> the same state          nothing
 */

export const webhookEventNames = [
  'miniapp_added',
  'miniapp_removed',
  'notifications_enabled',
  'notifications_disabled',
] as const;
export type WebhookEventName = (typeof webhookEventNames)[number];

/** One wallet's state for one app. */
export interface PinState {
  pinned: boolean;
  notificationsEnabled: boolean;
}

/** A change of one wallet's state for one app, as the preferences store committed it. */
export interface PinTransition {
  appUrl: string;
  /** EIP-55. */
  address: string;
  before: PinState;
  after: PinState;
  /** Unix milliseconds. */
  at: number;
}

/** The body POSTed to the webhook (the field names are the public contract). */
export interface WebhookEventBody {
  /** ULID; the same on every retry and resend (receivers dedupe on it). */
  id: string;
  event: WebhookEventName;
  appUrl: string;
  /** EIP-55. */
  walletAddress: string;
  /** The state after the transition (always false after miniapp_removed). */
  notificationsEnabled: boolean;
  /** ISO 8601: when the transition happened. */
  timestamp: string;
}

/** The event a transition stands for, or undefined when nothing observable changed. */
export function eventOf(transition: PinTransition): WebhookEventName | undefined {
  const { before, after } = transition;
  if (!before.pinned && after.pinned) return 'miniapp_added';
  if (before.pinned && !after.pinned) return 'miniapp_removed';
  if (!before.pinned) return undefined;
  if (!before.notificationsEnabled && after.notificationsEnabled) return 'notifications_enabled';
  if (before.notificationsEnabled && !after.notificationsEnabled) return 'notifications_disabled';
  return undefined;
}

export function eventBody(id: string, event: WebhookEventName, transition: PinTransition): WebhookEventBody {
  return {
    id,
    event,
    appUrl: transition.appUrl,
    walletAddress: transition.address,
    notificationsEnabled: transition.after.pinned && transition.after.notificationsEnabled,
    timestamp: new Date(transition.at).toISOString(),
  };
}
