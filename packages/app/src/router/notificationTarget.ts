/**
 * Where tapping a notification goes: the app's URL at its `target_path`, or the app's root.
 * The server guarantees the path starts with `/` (never `//` or `/\`), so concatenation stays
 * inside the app's origin; we check again because the page must never follow a foreign URL.
 */
export function notificationTarget(appUrl: string, targetPath?: string | null): string {
  const base = appUrl.replace(/\/+$/, '');
  if (!targetPath?.startsWith('/') || /^\/[/\\]/.test(targetPath)) return `${base}/`;
  const url = `${base}${targetPath}`;
  try {
    if (new URL(url).origin !== new URL(appUrl).origin) return `${base}/`;
  } catch {
    return `${base}/`;
  }
  return url;
}
