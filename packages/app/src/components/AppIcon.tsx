/** A mini app's icon: its host's first letter on a colour derived from the host. */
export function appHost(appUrl: string): string {
  try {
    return new URL(appUrl).host;
  } catch {
    return appUrl;
  }
}

export function AppIcon({ appUrl, name, large }: { appUrl: string; name?: string; large?: boolean }) {
  const host = appHost(appUrl);
  let hash = 0;
  for (const c of host) hash = (hash * 31 + (c.codePointAt(0) ?? 0)) >>> 0;
  const hue = hash % 360;
  const letter = (name || host).replace(/^www\./, '').charAt(0) || '?';
  return (
    <span
      className={large ? 'app-icon lg' : 'app-icon'}
      style={{ background: `linear-gradient(135deg, hsl(${hue} 70% 52%), hsl(${(hue + 40) % 360} 70% 42%))` }}
      aria-hidden="true"
    >
      {letter}
    </span>
  );
}
