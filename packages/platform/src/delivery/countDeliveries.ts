/** A delivery path that counts what it stored into the server's metrics (`metrics.ts`). */
import type { PlatformMetrics } from '../metrics.js';
import type { DeliveryPath } from './path.js';

export function countDeliveries(path: DeliveryPath, metrics: PlatformMetrics): DeliveryPath {
  return {
    openWindows: (keys, now) => path.openWindows(keys, now),
    async deliver(notifications, options) {
      const outcome = await path.deliver(notifications, options);
      metrics.notificationsStored.inc(outcome.delivered.length);
      if (options.record) metrics.sendsRecorded.inc({ sent_by: options.record.sentBy });
      return outcome;
    },
  };
}
