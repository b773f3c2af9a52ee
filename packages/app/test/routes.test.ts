import { describe, expect, it } from 'vitest';
import { notificationTarget } from '../src/router/notificationTarget.js';
import { isHttpUrl, parseRoute, type Route, routePath } from '../src/router/routes.js';

describe('parseRoute', () => {
  it.each<[string, string, Route]>([
    ['/', '', { area: 'platform', screen: 'apps' }],
    ['/discover', '', { area: 'platform', screen: 'discover' }],
    ['/inbox/', '', { area: 'platform', screen: 'inbox' }],
    ['/wallet', '', { area: 'platform', screen: 'wallet' }],
    [
      '/open',
      '?url=https%3A%2F%2Fapp.example%2Fx',
      { area: 'platform', screen: 'open', url: 'https://app.example/x' },
    ],
    ['/dashboard', '', { area: 'dashboard', screen: 'projects' }],
    ['/dashboard/', '', { area: 'dashboard', screen: 'projects' }],
    ['/dashboard/chain', '', { area: 'dashboard', screen: 'chain' }],
    ['/dashboard/projects/p%201', '', { area: 'dashboard', screen: 'project', projectId: 'p 1' }],
  ])('%s%s', (path, search, route) => {
    expect(parseRoute(path, search)).toEqual(route);
  });

  it('answers notFound for unknown paths in each area', () => {
    expect(parseRoute('/nope')).toEqual({ area: 'platform', screen: 'notFound', path: '/nope' });
    expect(parseRoute('/dashboard/x/y')).toEqual({
      area: 'dashboard',
      screen: 'notFound',
      path: '/dashboard/x/y',
    });
  });

  it('refuses to frame anything but http(s)', () => {
    expect(parseRoute('/open', '?url=javascript:alert(1)').screen).toBe('notFound');
    expect(parseRoute('/open', '?url=data:text/html,hi').screen).toBe('notFound');
    expect(parseRoute('/open', '').screen).toBe('notFound');
    expect(isHttpUrl('http://localhost:5555')).toBe(true);
  });

  it('round-trips through routePath', () => {
    const routes: Route[] = [
      { area: 'platform', screen: 'apps' },
      { area: 'platform', screen: 'inbox' },
      { area: 'platform', screen: 'open', url: 'http://localhost:5555/a?b=c' },
      { area: 'dashboard', screen: 'projects' },
      { area: 'dashboard', screen: 'project', projectId: 'prj_1' },
      { area: 'dashboard', screen: 'chain' },
    ];
    for (const route of routes) {
      const path = routePath(route);
      const q = path.indexOf('?');
      expect(parseRoute(q === -1 ? path : path.slice(0, q), q === -1 ? '' : path.slice(q))).toEqual(route);
    }
  });
});

describe('notificationTarget', () => {
  it('opens the app at its target path, or its root', () => {
    expect(notificationTarget('http://localhost:5555', '/orders/7?tab=1')).toBe(
      'http://localhost:5555/orders/7?tab=1',
    );
    expect(notificationTarget('https://app.example/mini', '/x')).toBe('https://app.example/mini/x');
    expect(notificationTarget('https://app.example', null)).toBe('https://app.example/');
    expect(notificationTarget('https://app.example/', undefined)).toBe('https://app.example/');
  });

  it('never leaves the app origin', () => {
    expect(notificationTarget('https://app.example', '//evil.example/x')).toBe('https://app.example/');
    expect(notificationTarget('https://app.example', '/\\evil.example')).toBe('https://app.example/');
    expect(notificationTarget('https://app.example', 'https://evil.example')).toBe('https://app.example/');
    expect(notificationTarget('https://app.example', '/@evil.example')).toBe(
      'https://app.example/@evil.example',
    );
  });
});
