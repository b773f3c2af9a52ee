/**
 * What the preferences store calls when a pin change commits a real transition: inside its
 * transaction, the event is queued (so a change is never committed without its event, nor an event
 * without its change); after the commit, the dispatcher is woken.
 */
import type { Transaction } from 'kysely';
import type { Tables } from '../db/schema.js';
import { eventBody, eventOf, type PinTransition } from './events.js';
import type { WebhooksRepository } from './repository.js';
import { webhookRetryWindowMs } from './dispatcher.js';

/** Consumer: the SQL preferences store (pin, unpin, setNotifications). */
export interface TransitionSink {
  /** In the transaction that made the change. */
  record(tx: Transaction<Tables>, transition: PinTransition): Promise<void>;
  /** After that transaction committed. */
  committed(): void;
}

export function webhookTransitionSink(
  repository: WebhooksRepository,
  newId: () => string,
  wake: () => void,
): TransitionSink {
  return {
    async record(tx, transition) {
      const event = eventOf(transition);
      if (!event) return;
      const id = newId();
      await repository.enqueue(tx, {
        id,
        appUrl: transition.appUrl,
        walletAddress: transition.address,
        event,
        body: JSON.stringify(eventBody(id, event, transition)),
        now: transition.at,
        deadlineAt: transition.at + webhookRetryWindowMs,
      });
    },
    committed: wake,
  };
}
