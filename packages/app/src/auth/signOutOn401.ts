/**
 * Wraps every method of an SDK client so that a 401 (an expired or revoked session) calls
 * `onUnauthorized` before the error goes on to the screen. Other properties (the token getter)
 * read through.
 */
import { WharfApiError } from '@wharf/sdk';

export function signOutOn401<T extends object>(client: T, onUnauthorized: () => void): T {
  return new Proxy(client, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result = value.apply(target, args);
        if (!(result instanceof Promise)) return result;
        return result.catch((error: unknown) => {
          if (error instanceof WharfApiError && error.status === 401) onUnauthorized();
          throw error;
        });
      };
    },
  });
}
