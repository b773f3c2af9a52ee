/**
 * The inbox of the signed-in person: the first page, the unread count and the live stream, in
 * one place, so that the badge in the header and the inbox screen never disagree.
 */
import {
  createContext,
  type ReactNode,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
} from 'react';
import { type PlatformClient, type PlatformNotification, type StreamState, WharfApiError } from '@wharf/sdk';

const PAGE = 30;

interface InboxValue {
  items: PlatformNotification[];
  loading: boolean;
  error: unknown;
  /** All unread notifications (the server's count, kept current by the stream). */
  unread: number;
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

function merge(existing: PlatformNotification[], incoming: PlatformNotification[]): PlatformNotification[] {
  const byId = new Map(existing.map((n) => [n.id, n]));
  for (const n of incoming) byId.set(n.id, { ...byId.get(n.id), ...n });
  // ULIDs sort by time; fall back to createdAt when ids are something else.
  return [...byId.values()].sort(
    (a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id),
  );
}

export function InboxProvider({
  api,
  onUnauthorized,
  children,
}: {
  api: PlatformClient;
  onUnauthorized: () => void;
  children: ReactNode;
}) {
  const [items, setItems] = useState<PlatformNotification[]>([]);
  const [cursor, setCursor] = useState<string>();
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<unknown>();
  // Ids known unread here, and the server's count of all unread (beyond the loaded pages).
  const [unreadIds, setUnreadIds] = useState<Set<string>>(new Set());
  const [serverUnread, setServerUnread] = useState<number>();
  const [stream, setStream] = useState<StreamState>('connecting');
  const [tick, setTick] = useState(0);
  // Ids already counted, so that a resumed stream replaying one does not count it twice.
  const seen = useRef(new Set<string>());
  const unreadNow = useRef(unreadIds);
  unreadNow.current = unreadIds;

  // biome-ignore lint/correctness/useExhaustiveDependencies: tick reloads
  useEffect(() => {
    let cancelled = false;
    setLoading(true);
    setError(undefined);
    api.notifications({ limit: PAGE }).then(
      (page) => {
        if (cancelled) return;
        for (const n of page.notifications) seen.current.add(n.id);
        setItems((previous) => merge(previous, page.notifications));
        setCursor(page.nextCursor);
        // Union: a live notification may have arrived before this answer.
        setUnreadIds(
          (previous) =>
            new Set([...previous, ...page.notifications.filter((n) => !n.readAt).map((n) => n.id)]),
        );
        setServerUnread(page.unreadCount);
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

  // The live stream: it reconnects by itself and resumes after the last id it saw; a 401 ends it.
  useEffect(() => {
    const stop = new AbortController();
    void api.stream({
      signal: stop.signal,
      onNotification: (n) => {
        setItems((previous) => merge(previous, [n]));
        if (seen.current.has(n.id)) return;
        seen.current.add(n.id);
        if (n.readAt) return;
        setUnreadIds((previous) => new Set(previous).add(n.id));
        setServerUnread((c) => (c === undefined ? c : c + 1));
      },
      onState: setStream,
      onError: (error) => {
        if (error instanceof WharfApiError && error.status === 401) onUnauthorized();
      },
    });
    return () => stop.abort();
  }, [api, onUnauthorized]);

  const loadMore = useCallback(async () => {
    if (!cursor) return;
    const page = await api.notifications({ cursor, limit: PAGE });
    for (const n of page.notifications) seen.current.add(n.id);
    setItems((previous) => merge(previous, page.notifications));
    setUnreadIds(
      (previous) => new Set([...previous, ...page.notifications.filter((n) => !n.readAt).map((n) => n.id)]),
    );
    setCursor(page.nextCursor);
  }, [api, cursor]);

  const markRead = useCallback(
    async (ids: string[]) => {
      const now = new Date().toISOString();
      setItems((previous) =>
        previous.map((n) => (ids.includes(n.id) && !n.readAt ? { ...n, readAt: now } : n)),
      );
      const newlyRead = ids.filter((id) => unreadNow.current.has(id)).length;
      setUnreadIds((previous) => new Set([...previous].filter((id) => !ids.includes(id))));
      setServerUnread((c) => (c === undefined ? c : Math.max(0, c - newlyRead)));
      const result = await api.markRead({ ids });
      setServerUnread(result.unreadCount);
    },
    [api],
  );

  const markAllRead = useCallback(async () => {
    const now = new Date().toISOString();
    setItems((previous) => previous.map((n) => (n.readAt ? n : { ...n, readAt: now })));
    setUnreadIds(new Set());
    setServerUnread(0);
    const result = await api.markRead({ all: true });
    setServerUnread(result.unreadCount);
  }, [api]);

  const unread = serverUnread ?? unreadIds.size;
  const value = useMemo<InboxValue>(
    () => ({
      items,
      loading,
      error,
      unread,
      hasMore: cursor !== undefined,
      stream,
      loadMore,
      markRead,
      markAllRead,
      reload: () => setTick((t) => t + 1),
    }),
    [items, loading, error, unread, cursor, stream, loadMore, markRead, markAllRead],
  );
  return <InboxContext.Provider value={value}>{children}</InboxContext.Provider>;
}
