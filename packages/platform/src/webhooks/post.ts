/**
 * One webhook attempt: POST the body with its signature, wait at most `timeoutMs` for the status
 * line, never follow redirects. With `blockPrivate`, the address connected to must be public (the
 * check sits in the socket's DNS lookup, so a name that resolves to 127.0.0.1 is refused too).
 */
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isPrivateAddress } from './url.js';

export interface AttemptResult {
  /** HTTP status, when the receiver answered. */
  statusCode?: number;
  /** Why the attempt failed without a status (timeout, refused, private address ...). */
  error?: string;
}

const userAgent = 'wharf-webhooks/1';

const checkedLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 4);
    const list = addresses as dns.LookupAddress[];
    const bad = list.find((a) => isPrivateAddress(a.address));
    if (bad) {
      const refusal = Object.assign(
        new Error(`${hostname} resolves to ${bad.address}, a private address (--webhook-block-private)`),
        { code: 'EPRIVATEADDRESS' },
      );
      return callback(refusal, '', 4);
    }
    if ((options as { all?: boolean }).all) return (callback as any)(null, list);
    const first = list[0]!;
    callback(null, first.address, first.family);
  });
};

export function postWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: { timeoutMs: number; blockPrivate: boolean; signal?: AbortSignal },
): Promise<AttemptResult> {
  return new Promise((resolve) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      resolve({ error: 'the webhook URL is not a valid URL' });
      return;
    }
    const host = target.hostname.replace(/^\[|\]$/g, '');
    if (options.blockPrivate && (isIP(host) ? isPrivateAddress(host) : host === 'localhost')) {
      resolve({ error: `${host} is a private address (--webhook-block-private)` });
      return;
    }
    const client = target.protocol === 'https:' ? https : http;
    let settled = false;
    const finish = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      request.destroy();
      resolve(result);
    };
    const request = client.request(target, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'user-agent': userAgent,
        ...headers,
      },
      agent: false,
      ...(options.blockPrivate ? { lookup: checkedLookup } : {}),
    });
    const timer = setTimeout(
      () => finish({ error: `no answer within ${options.timeoutMs / 1000} s` }),
      options.timeoutMs,
    );
    const onAbort = () => finish({ error: 'the server stopped during the attempt' });
    options.signal?.addEventListener('abort', onAbort);
    request.on('response', (response) => {
      // The status is the answer; the body is read and dropped so the socket can close.
      response.resume();
      finish({ statusCode: response.statusCode ?? 0 });
    });
    request.on('error', (error) => finish({ error: error.message || String(error) }));
    request.end(body);
  });
}
