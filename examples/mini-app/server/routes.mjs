// The example's HTTP API (JSON), next to its static front end:
//   GET  /api/siwe/nonce        a one-time nonce for Sign in with Ethereum
//   POST /api/siwe/verify       {message, signature} -> {token, address}
//   GET  /api/me                the signed-in address (Authorization: Bearer <token>)
//   GET  /api/users             the app's users on the platform (@wharf/sdk listUsers)
//   POST /api/notify            {title, message} to every user with notifications on (sendToAll)
//   POST /api/webhook           the platform's events, checked with verifyWebhook
//   GET  /api/events            the events received so far, newest first
import { verifyWebhook, WEBHOOK_SIGNATURE_HEADER, WebhookVerificationError } from '@wharf/sdk';

const MAX_BODY_BYTES = 64 * 1024;
const MAX_EVENTS = 100;

/** @param {import('node:http').IncomingMessage} req @returns {Promise<string>} */
function readBody(req) {
  return new Promise((resolve, reject) => {
    let size = 0;
    /** @type {Buffer[]} */
    const chunks = [];
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error(`body larger than ${MAX_BODY_BYTES} bytes`));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** @param {import('node:http').ServerResponse} res @returns {true} answered */
function json(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
  return true;
}

function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * @param {{ client: () => ReturnType<typeof import('@wharf/sdk').createNotificationsClient>,
 *   sessions: ReturnType<typeof import('./sessions.mjs').createSessions>,
 *   config: () => { appUrl: string, webhookSecret: string } }} deps
 */
export function createApi({ client, sessions, config }) {
  /** @type {import('@wharf/sdk').WebhookEvent[]} */
  const events = [];
  const seen = new Set();

  /** @returns {Promise<boolean>} whether it answered the request */
  return async function api(req, res) {
    const url = new URL(req.url ?? '/', 'http://x');
    const route = `${req.method} ${url.pathname}`;
    const signedIn = () => sessions.addressOf(req.headers.authorization);
    try {
      switch (route) {
        case 'GET /api/siwe/nonce':
          return json(res, 200, { nonce: sessions.nonce() });
        case 'POST /api/siwe/verify': {
          const body = parseJson(await readBody(req)) ?? {};
          try {
            return json(
              res,
              200,
              await sessions.signIn(body.message, body.signature, req.headers.host ?? ''),
            );
          } catch (e) {
            return json(res, 401, { error: /** @type {Error} */ (e).message });
          }
        }
        case 'GET /api/me': {
          const address = signedIn();
          return json(res, address ? 200 : 401, address ? { address } : { error: 'not signed in' });
        }
        case 'GET /api/users': {
          if (!signedIn()) return json(res, 401, { error: 'sign in first' });
          const page = await client().listUsers({ appUrl: config().appUrl, limit: 100 });
          return json(res, 200, page);
        }
        case 'POST /api/notify': {
          // A demo: any signed-in user may press the button. A real app checks a role here.
          if (!signedIn()) return json(res, 401, { error: 'sign in first' });
          const body = parseJson(await readBody(req)) ?? {};
          const { appUrl } = config();
          const result = await client().sendToAll({
            appUrl,
            walletAddresses: (async function* () {
              for await (const user of client().users({ appUrl, notificationEnabled: true }))
                yield user.address;
            })(),
            title: String(body.title || 'Hello from the example'),
            message: String(body.message || 'Sent from the example mini app'),
            targetPath: '/',
          });
          return json(res, 200, { sentCount: result.sentCount, failedCount: result.failedCount });
        }
        case 'POST /api/webhook': {
          // Verify on the raw body, before parsing: the signature covers the exact bytes.
          const raw = await readBody(req);
          try {
            const header = req.headers[WEBHOOK_SIGNATURE_HEADER];
            const event = await verifyWebhook(
              raw,
              Array.isArray(header) ? header[0] : header,
              config().webhookSecret,
            );
            if (!seen.has(event.id)) {
              // At-least-once delivery: the same id may arrive again after a retry.
              seen.add(event.id);
              events.unshift(event);
              events.length = Math.min(events.length, MAX_EVENTS);
              console.log(`webhook: ${event.event} ${event.walletAddress}`);
            }
            return json(res, 200, { ok: true });
          } catch (e) {
            if (!(e instanceof WebhookVerificationError)) throw e;
            return json(res, 401, { error: e.message });
          }
        }
        case 'GET /api/events':
          return json(res, 200, { events });
        default:
          if (url.pathname.startsWith('/api/')) return json(res, 404, { error: `no route ${route}` });
          return false;
      }
    } catch (e) {
      const error = /** @type {Error & { status?: number }} */ (e);
      console.error(`${route}: ${error.message}`);
      return json(res, 502, { error: error.message });
    }
  };
}
