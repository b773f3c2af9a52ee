/**
 * @wharf/sdk — a typed client of the wharf notifications API (filled in by the notifications issue).
 */
export const API_VERSION = 'v1';
