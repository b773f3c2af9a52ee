/**
 * A mini app's icon: the icon its developer set (the project's icon URL), else its name's (or
 * host's) first letter on a colour derived from the host. A broken image falls back to the letter.
 */
import { useState } from 'react';

export function appHost(appUrl: string): string {
  try {
    return new URL(appUrl).host;
  } catch {
    return appUrl;
  }
}

export function AppIcon({
  appUrl,
  name,
  iconUrl,
  large,
}: {
  appUrl: string;
  name?: string;
  iconUrl?: string | null;
  large?: boolean;
}) {
  const [broken, setBroken] = useState<string>();
  const host = appHost(appUrl);
  let hash = 0;
  for (const c of host) hash = (hash * 31 + (c.codePointAt(0) ?? 0)) >>> 0;
  const hue = hash % 360;
  const letter = (name || host).replace(/^www\./, '').charAt(0) || '?';
  if (iconUrl && broken !== iconUrl)
    return (
      <img
        className={large ? 'app-icon lg' : 'app-icon'}
        src={iconUrl}
        alt=""
        aria-hidden="true"
        referrerPolicy="no-referrer"
        onError={() => setBroken(iconUrl)}
        data-testid="app-icon-image"
      />
    );
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
