/**
 * The inbox of the signed-in person: the first page, the unread count and the live stream, in
 * one place, so that the badge in the header and the inbox screen never disagree.
 */
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import type { ClientApi, InboxNotification } from '../api/clientApi.js';
import { openNotificationStream, type StreamState } from '../api/notificationStream.js';

const PAGE = 30;

interface InboxValue {
  items: InboxNotification[];
  loading: boolean;
  error: unknown;
  unread: number;
  /** True when there are more unread than one page shows. */
  unreadMore: boolean;
  hasMore: boolean;
  stream: StreamState;
  loadMore(): Promise<void>;
  markRead(ids: string[]): Promise<void>;
  markAllRead(): Promise<void>;
  reload(): void;
}

const InboxContext = createContext<InboxValue | undefined>(undefined);

export function useInbox(): InboxValue {
  const value = useContext(InboxContext);
  if (!value) throw new Error('useInbox outside InboxProvider');
  return value;
}

function merge(existing: InboxNotification[], incoming: InboxNotification[]): InboxNotification[] {
  const byId = new Map(existing.map((n) => [n.id, n]));
  for (const n of incoming) byId.set(n.id, { ...byId.get(n.id), ...n });
  // ULIDs sort by time; fall back to createdAt when ids are something else.
  return [...byId.values()].sort(
    (a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id),
  );
}

export function InboxProvider({
  api,
  token,
  onUnauthorized,
  children,
}: {
  api: ClientApi;
  token: string;
  onUnauthorized: () => void;
  children: ReactNode;
}) {
  const [items, setItems] = useState<InboxNotification[]>([]);
  const [cursor, setCursor] = useState<string>();
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<unknown>();
  const [unreadIds, setUnreadIds] = useState<Set<string>>(new Set());
  const [unreadMore, setUnreadMore] = useState(false);
  const [stream, setStream] = useState<StreamState>('connecting');
  const [tick, setTick] = useState(0);

  // biome-ignore lint/correctness/useExhaustiveDependencies: tick reloads
  useEffect(() => {
    let cancelled = false;
    setLoading(true);
    setError(undefined);
    Promise.all([api.notifications({ limit: PAGE }), api.notifications({ unread: true, limit: 100 })]).then(
      ([page, unread]) => {
        if (cancelled) return;
        setItems((previous) => merge(previous, page.notifications));
        setCursor(page.nextCursor);
        // Union: a live notification may have arrived before this answer.
        setUnreadIds((previous) => new Set([...previous, ...unread.notifications.map((n) => n.id)]));
        setUnreadMore(unread.nextCursor !== undefined);
        setLoading(false);
      },
      (e: unknown) => {
        if (cancelled) return;
        setError(e);
        setLoading(false);
      },
    );
    return () => {
      cancelled = true;
    };
  }, [api, tick]);

  useEffect(
    () =>
      openNotificationStream(token, {
        onNotification: (n) => {
          setItems((previous) => merge(previous, [n]));
          if (!n.readAt) setUnreadIds((previous) => new Set(previous).add(n.id));
        },
        onState: setStream,
        onUnauthorized,
      }),
    [token, onUnauthorized],
  );

  const loadMore = useCallback(async () => {
    if (!cursor) return;
    const page = await api.notifications({ cursor, limit: PAGE });
    setItems((previous) => merge(previous, page.notifications));
    setCursor(page.nextCursor);
  }, [api, cursor]);

  const markRead = useCallback(
    async (ids: string[]) => {
      const now = new Date().toISOString();
      setItems((previous) =>
        previous.map((n) => (ids.includes(n.id) && !n.readAt ? { ...n, readAt: now } : n)),
      );
      setUnreadIds((previous) => {
        const next = new Set(previous);
        for (const id of ids) next.delete(id);
        return next;
      });
      await api.markRead(ids);
    },
    [api],
  );

  const markAllRead = useCallback(async () => {
    const now = new Date().toISOString();
    setItems((previous) => previous.map((n) => (n.readAt ? n : { ...n, readAt: now })));
    setUnreadIds(new Set());
    setUnreadMore(false);
    await api.markRead('all');
  }, [api]);

  const value = useMemo<InboxValue>(
    () => ({
      items,
      loading,
      error,
      unread: unreadIds.size,
      unreadMore,
      hasMore: cursor !== undefined,
      stream,
      loadMore,
      markRead,
      markAllRead,
      reload: () => setTick((t) => t + 1),
    }),
    [items, loading, error, unreadIds, unreadMore, cursor, stream, loadMore, markRead, markAllRead],
  );
  return <InboxContext.Provider value={value}>{children}</InboxContext.Provider>;
}
