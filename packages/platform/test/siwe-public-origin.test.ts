/**
 * Finding 1 of issue 29: Sign-In with Ethereum names the platform's configured public origin,
 * never the request's Host. The phishing replay — a site has the victim sign in to
 * `evil.example` with a nonce taken from wharf, then replays the signature with
 * `Host: evil.example` (or `X-Forwarded-Host`) — is refused on a real listening server, for the
 * client API and the dashboard. And nothing reaches the chain (ERC-1271's eth_call) without a
 * live nonce.
 */
import http from 'node:http';
import { privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { backends, cleanupBackends, type ListeningApp, listenApp, rawRequest } from './helpers.js';

afterAll(cleanupBackends);

const victim = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const realms = [
  { name: 'client API', base: '/api/v1/client/auth' },
  { name: 'dashboard', base: '/api/v1/dashboard/auth' },
] as const;

async function nonceFrom(t: ListeningApp, base: string): Promise<string> {
  const res = await rawRequest(`${t.url}${base}/nonce`, { method: 'POST' });
  expect(res.status).toBe(200);
  return res.json().nonce;
}

function message(fields: { domain: string; uri: string; nonce: string }): string {
  // viem will not write an IPv6 literal as the domain: write that one by hand (EIP-4361's layout).
  if (fields.domain.startsWith('['))
    return `${fields.domain} wants you to sign in with your Ethereum account:\n${victim.address}\n\nURI: ${fields.uri}\nVersion: 1\nChain ID: 31337\nNonce: ${fields.nonce}\nIssued At: ${new Date().toISOString()}`;
  return createSiweMessage({ address: victim.address, chainId: 31337, version: '1', ...fields });
}

async function verify(
  t: ListeningApp,
  base: string,
  text: string,
  headers: Record<string, string> = {},
  signature?: string,
) {
  return rawRequest(`${t.url}${base}/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({
      message: text,
      signature: signature ?? (await victim.signMessage({ message: text })),
    }),
  });
}

describe.each(backends)('SIWE names the public origin, on $name', (backend) => {
  let t: ListeningApp;
  afterEach(async () => {
    await t?.close();
  });

  it.each(realms)(
    '$name: the phishing replay with Host / X-Forwarded-Host: evil.example is 401',
    async ({ base }) => {
      // trustProxy 1: the server believes its proxy's X-Forwarded-* headers, and still refuses.
      t = await listenApp(backend, { trustProxy: 1 });
      for (const headers of <Array<Record<string, string>>>[
        { host: 'evil.example' },
        { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
        { 'x-forwarded-host': 'evil.example' },
      ]) {
        const nonce = await nonceFrom(t, base);
        // What the victim signed on the phishing site: their wallet rightly showed evil.example.
        const signed = message({ domain: 'evil.example', uri: 'https://evil.example/login', nonce });
        const res = await verify(t, base, signed, headers);
        expect(res.status).toBe(401);
        expect(res.json()).toEqual({
          success: false,
          error: 'Unauthorized',
          message: expect.stringContaining('domain evil.example is not this service'),
        });
      }
    },
  );

  it.each(realms)(
    '$name: without --public-url, the loopback origins it listens on sign in',
    async ({ base }) => {
      t = await listenApp(backend);
      for (const host of [`127.0.0.1:${t.port}`, `localhost:${t.port}`, `[::1]:${t.port}`]) {
        const signed = message({ domain: host, uri: `http://${host}/`, nonce: await nonceFrom(t, base) });
        // Whatever Host the request carries: only the message's names count.
        const res = await verify(t, base, signed, { host: 'evil.example' });
        expect(res.status, host).toBe(200);
        expect(res.json().token).toEqual(expect.any(String));
      }
      const otherPort = message({
        domain: `127.0.0.1:${t.port + 1}`,
        uri: `http://127.0.0.1:${t.port + 1}/`,
        nonce: await nonceFrom(t, base),
      });
      expect((await verify(t, base, otherPort)).status).toBe(401);
      const uriElsewhere = message({
        domain: `127.0.0.1:${t.port}`,
        uri: 'https://evil.example/',
        nonce: await nonceFrom(t, base),
      });
      const res = await verify(t, base, uriElsewhere);
      expect(res.status).toBe(401);
      expect(res.json().message).toContain('uri https://evil.example/ is not on');
    },
  );

  it.each(realms)('$name: with --public-url, only that origin signs in', async ({ base }) => {
    t = await listenApp(backend, { publicUrl: 'https://wharf.example.com/' });
    const loopback = message({
      domain: `127.0.0.1:${t.port}`,
      uri: `http://127.0.0.1:${t.port}/`,
      nonce: await nonceFrom(t, base),
    });
    expect((await verify(t, base, loopback, { host: `127.0.0.1:${t.port}` })).status).toBe(401);
    const plainHttp = message({
      domain: 'wharf.example.com',
      uri: 'http://wharf.example.com/',
      nonce: await nonceFrom(t, base),
    });
    expect((await verify(t, base, plainHttp)).status).toBe(401);
    const good = message({
      domain: 'wharf.example.com',
      uri: 'https://wharf.example.com/',
      nonce: await nonceFrom(t, base),
    });
    expect((await verify(t, base, good)).status).toBe(200);
  });

  it('nonces come from the CSPRNG: 128 bits, never repeated', async () => {
    t = await listenApp(backend);
    const seen = new Set<string>();
    for (let i = 0; i < 50; i++) seen.add(await nonceFrom(t, realms[i % 2]!.base));
    expect(seen.size).toBe(50);
    for (const n of seen) expect(n).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe('the nonce is checked before the signature (ERC-1271 reaches the chain)', () => {
  let t: ListeningApp | undefined;
  let chain: http.Server | undefined;
  afterEach(async () => {
    await t?.close();
    await new Promise((r) => chain?.close(r));
  });

  it('an unauthenticated verify with a bad or reused nonce never calls the chain node', async () => {
    // A JSON-RPC endpoint that counts what reaches it (it answers "no code, call failed").
    const calls: string[] = [];
    chain = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const payload = JSON.parse(body);
        const list = Array.isArray(payload) ? payload : [payload];
        for (const p of list) calls.push(p.method);
        const answer = list.map((p: { id: number; method: string }) =>
          p.method === 'eth_chainId'
            ? { jsonrpc: '2.0', id: p.id, result: '0x7a69' }
            : { jsonrpc: '2.0', id: p.id, error: { code: -32000, message: 'execution reverted' } },
        );
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(Array.isArray(payload) ? answer : answer[0]));
      });
    });
    await new Promise<void>((r) => chain!.listen(0, '127.0.0.1', r));
    const port = (chain.address() as { port: number }).port;
    t = await listenApp(backends[0]!, { chainRpc: `http://127.0.0.1:${port}` });
    const host = `127.0.0.1:${t.port}`;
    // A contract wallet's address (its signature is not an EOA's: only ERC-1271 could accept it).
    const wallet = '0x00000000000000000000000000000000000c0de1';
    const junk = `0x${'ab'.repeat(65)}`;
    const forWallet = (nonce: string) =>
      createSiweMessage({
        address: wallet,
        chainId: 31337,
        version: '1',
        domain: host,
        uri: `http://${host}/`,
        nonce,
      });

    for (const base of realms.map((r) => r.base)) {
      const unknown = await verify(t, base, forWallet('0123456789abcdef0123456789abcdef'), {}, junk);
      expect(unknown.status).toBe(401);
      expect(unknown.json().message).toContain('nonce');
    }
    expect(calls).toEqual([]);

    // The control: with a live nonce the same junk does reach the chain (and fails there) —
    // once; replaying it with the spent nonce does not reach it again.
    const nonce = await nonceFrom(t, realms[0].base);
    const live = await verify(t, realms[0].base, forWallet(nonce), {}, junk);
    expect(live.status).toBe(401);
    expect(live.json().message).toContain('signature');
    const reached = calls.length;
    expect(reached).toBeGreaterThan(0);
    const replay = await verify(t, realms[0].base, forWallet(nonce), {}, junk);
    expect(replay.json().message).toContain('nonce');
    expect(calls.length).toBe(reached);
  });
});
