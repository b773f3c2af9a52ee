/**
 * What an SSE stream needs to survive the fan-out's gaps (docs/decisions/0170): the ids it already
 * wrote (the outbox relay may push a notification a second time; the stream writes it once), and
 * the smallest ULID of a moment (to re-read the inbox from when the link to Redis was lost).
 */

/** The last `capacity` ids written on one connection. */
export class RecentIds {
  private readonly ids = new Set<string>();

  constructor(private readonly capacity = 2_000) {}

  has(id: string): boolean {
    return this.ids.has(id);
  }

  add(id: string): void {
    this.ids.add(id);
    if (this.ids.size > this.capacity) this.ids.delete(this.ids.values().next().value!);
  }
}

const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** The smallest ULID of millisecond `time`: every id created at or after `time` sorts above it. */
export function ulidFloor(time: number): string {
  let out = '';
  let value = Math.max(0, Math.floor(time));
  for (let i = 0; i < 10; i++) {
    out = alphabet[value % 32]! + out;
    value = Math.floor(value / 32);
  }
  return `${out}${'0'.repeat(16)}`;
}
