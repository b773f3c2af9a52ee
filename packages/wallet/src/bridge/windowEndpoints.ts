/**
 * postMessage transports for the bridge. Browser-safe; typed structurally so they need no DOM
 * library and can be tested with fakes.
 */
import { type BridgeEndpoint, isBridgeMessage } from './protocol.js';

/** A window that can be posted to (`iframe.contentWindow`, `window.parent`). */
export interface PostTarget {
  postMessage(message: unknown, targetOrigin: string): void;
}

/** A message event as the browser delivers it. */
export interface MessageEventLike {
  data: unknown;
  origin: string;
  source: unknown;
}

/** Where message events arrive (`window`). */
export interface MessageEventSourceLike {
  addEventListener(type: 'message', listener: (event: MessageEventLike) => void): void;
  removeEventListener(type: 'message', listener: (event: MessageEventLike) => void): void;
}

/** An opaque origin (a sandboxed iframe without allow-same-origin) can only be posted to with '*'. */
const targetOriginFor = (origin: string) => (origin === 'null' ? '*' : origin);

/**
 * The app's side: talks to one iframe. Only messages whose `source` is that iframe's window and
 * whose `origin` is `origin` are heard; answers are posted to `origin` only.
 */
export function iframeEndpoint(options: {
  /** The iframe's window: `iframe.contentWindow`. */
  frame: PostTarget;
  /** The origin the iframe's app was loaded from, e.g. `https://mini.example`. */
  origin: string;
  /** The app's own window (where the iframe's messages arrive). Default: `globalThis`. */
  host?: MessageEventSourceLike;
}): BridgeEndpoint {
  const host = options.host ?? (globalThis as unknown as MessageEventSourceLike);
  return {
    send: (message) => options.frame.postMessage(message, targetOriginFor(options.origin)),
    listen(handler) {
      const listener = (event: MessageEventLike) => {
        if (event.source !== options.frame || event.origin !== options.origin) return;
        if (isBridgeMessage(event.data)) handler(event.data);
      };
      host.addEventListener('message', listener);
      return () => host.removeEventListener('message', listener);
    },
  };
}

/**
 * The mini app's side: talks to the parent window (the platform app) at `parentOrigin`.
 */
export function parentEndpoint(options: {
  /** The platform app's origin, e.g. `http://127.0.0.1:3000`. */
  parentOrigin: string;
  /** The parent window. Default: `globalThis.parent`. */
  parent?: PostTarget;
  /** The iframe's own window. Default: `globalThis`. */
  self?: MessageEventSourceLike;
}): BridgeEndpoint {
  const self = options.self ?? (globalThis as unknown as MessageEventSourceLike);
  const parent = options.parent ?? (globalThis as unknown as { parent: PostTarget }).parent;
  return {
    send: (message) => parent.postMessage(message, options.parentOrigin),
    listen(handler) {
      const listener = (event: MessageEventLike) => {
        if (event.source !== parent || event.origin !== options.parentOrigin) return;
        if (isBridgeMessage(event.data)) handler(event.data);
      };
      self.addEventListener('message', listener);
      return () => self.removeEventListener('message', listener);
    },
  };
}

/** Two connected in-memory endpoints (tests, or a worker wired by hand). Delivery is asynchronous. */
export function endpointPair(): [BridgeEndpoint, BridgeEndpoint] {
  const handlers: [Set<(m: never) => void>, Set<(m: never) => void>] = [new Set(), new Set()];
  const side = (mine: 0 | 1): BridgeEndpoint => ({
    send(message) {
      const copy = structuredClone(message) as never;
      queueMicrotask(() => {
        for (const h of handlers[mine === 0 ? 1 : 0]) h(copy);
      });
    },
    listen(handler) {
      handlers[mine].add(handler as (m: never) => void);
      return () => handlers[mine].delete(handler as (m: never) => void);
    },
  });
  return [side(0), side(1)];
}
