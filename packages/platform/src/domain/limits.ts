/**
 * The request limits of the developer and client APIs (spec: Limits; design: Notifications
 * decisions), in one place: the route schemas validate with them and the services read them.
 * Lengths are Unicode code points.
 */
export const limits = {
  titleMax: 30,
  messageMax: 200,
  targetPathMax: 500,
  addressesMin: 1,
  addressesMax: 1000,
  pageDefault: 100,
  pageMax: 500,
  dedupeWindowMs: 24 * 60 * 60 * 1000,
  /** A project's name (admin and dashboard APIs). */
  projectNameMax: 100,
  /** The client API's inbox page: default and clamp. */
  inboxPageDefault: 50,
  inboxPageMax: 200,
  /** Notification ids in one mark-read request. */
  readIdsMax: 1000,
} as const;

/** Code points, as the limits count them (a surrogate pair is one). */
export function codePointLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}
