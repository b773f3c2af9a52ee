// The example's page: connect the wallet, show the balance at `pending`, send a transfer and time
// its pre-confirmation, sign in to this app's back end with SIWE, and use the back end's
// developer actions (users, notify) and see the platform's webhook events it received.
import { createPublicClient, createWalletClient, custom, formatEther, isAddress, parseEther } from 'viem';
import { createSiweMessage } from 'viem/siwe';
import { findWallet } from './wallet.js';

const $ = (/** @type {string} */ selector) => /** @type {HTMLElement} */ (document.querySelector(selector));
const field = (/** @type {string} */ id) => /** @type {HTMLInputElement} */ (document.getElementById(id));
const button = (/** @type {string} */ id) => /** @type {HTMLButtonElement} */ (document.getElementById(id));
const testId = (/** @type {string} */ id) => $(`[data-testid="${id}"]`);

/** Shows a message, or an error in red, in one of the result lines. */
function say(/** @type {string} */ id, /** @type {string} */ text, error = false) {
  const el = testId(id);
  el.textContent = text;
  el.classList.toggle('error', error);
}
const messageOf = (/** @type {any} */ e) => e?.shortMessage ?? e?.message ?? String(e);

/** @type {{ address?: `0x${string}`, token?: string }} */
const state = {};

/** This app's own back end, with the SIWE session token when signed in. */
async function backend(/** @type {string} */ path, /** @type {unknown} */ body) {
  const headers = /** @type {Record<string, string>} */ ({ 'content-type': 'application/json' });
  if (state.token) headers.authorization = `Bearer ${state.token}`;
  const res = await fetch(
    path,
    body === undefined ? { headers } : { method: 'POST', headers, body: JSON.stringify(body) },
  );
  const json = await res.json();
  if (!res.ok) throw new Error(json.error ?? `HTTP ${res.status}`);
  return json;
}

const wallet = await findWallet();
if (!wallet) {
  say('wallet-found', 'No wallet found: open this app inside wharf, or install a wallet extension.', true);
  throw new Error('no wallet');
}
testId('wallet-found').textContent = `Wallet: ${wallet.name} (via ${wallet.via})`;
const publicClient = createPublicClient({ transport: custom(wallet.provider) });
const walletClient = createWalletClient({ transport: custom(wallet.provider) });
button('connect').disabled = false;

async function showBalance() {
  if (!state.address) return;
  const wei = await publicClient.getBalance({ address: state.address, blockTag: 'pending' });
  testId('balance').textContent = `${formatEther(wei)} ETH`;
}

button('connect').onclick = async () => {
  try {
    const [address] = await walletClient.requestAddresses();
    state.address = address;
    testId('address').textContent = address;
    for (const id of ['send', 'sign-in']) button(id).disabled = false;
    await showBalance();
  } catch (e) {
    say('address', messageOf(e), true);
  }
};

button('send').onclick = async () => {
  const to = field('to').value.trim();
  if (!state.address || !isAddress(to)) return say('send-result', 'Enter a 0x address to send to.', true);
  button('send').disabled = true;
  try {
    say('send-result', 'Waiting for approval…');
    const hash = await walletClient.sendTransaction({
      account: state.address,
      to,
      value: parseEther(field('amount').value),
      chain: null,
    });
    // The clock starts when the node accepted the transaction (the hash is back); the receipt
    // exists as soon as a 200 ms flashblock includes it, long before the block is sealed.
    const submitted = performance.now();
    say('send-result', `Sent ${hash.slice(0, 10)}…, waiting for the pre-confirmation`);
    let receipt = null;
    while (!receipt) {
      receipt = await publicClient.getTransactionReceipt({ hash }).catch(() => null);
      if (!receipt) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const ms = Math.round(performance.now() - submitted);
    say('send-result', `Pre-confirmed in ${ms} ms (${receipt.status}, block ${receipt.blockNumber})`);
    await showBalance();
  } catch (e) {
    say('send-result', messageOf(e), true);
  } finally {
    button('send').disabled = false;
  }
};

button('sign-in').onclick = async () => {
  if (!state.address) return;
  try {
    const { nonce } = await backend('/api/siwe/nonce');
    const message = createSiweMessage({
      address: state.address,
      chainId: await publicClient.getChainId(),
      domain: location.host,
      uri: location.origin,
      nonce,
      version: '1',
      statement: 'Sign in to the example mini app.',
    });
    const signature = await walletClient.signMessage({ account: state.address, message });
    const session = await backend('/api/siwe/verify', { message, signature });
    state.token = session.token;
    say('session', `Signed in as ${session.address}`);
    for (const id of ['users', 'notify']) button(id).disabled = false;
  } catch (e) {
    say('session', messageOf(e), true);
  }
};

button('users').onclick = async () => {
  const list = testId('users');
  try {
    const page = await backend('/api/users');
    list.replaceChildren(
      ...page.users.map((/** @type {any} */ u) => {
        const li = document.createElement('li');
        li.textContent = `${u.address} — notifications ${u.notificationsEnabled ? 'on' : 'off'}`;
        return li;
      }),
    );
    if (page.users.length === 0) list.innerHTML = '<li class="muted">no users yet: pin the app in wharf</li>';
  } catch (e) {
    list.textContent = messageOf(e);
  }
};

button('notify').onclick = async () => {
  try {
    say('notify-result', 'Sending…');
    const result = await backend('/api/notify', { title: field('title').value });
    say('notify-result', `Sent to ${result.sentCount}, failed ${result.failedCount}`);
  } catch (e) {
    say('notify-result', messageOf(e), true);
  }
};

/** The webhook events the back end verified, refreshed every second. */
async function showEvents() {
  const { events } = await backend('/api/events').catch(() => ({ events: [] }));
  if (events.length === 0) return;
  testId('events').replaceChildren(
    ...events.map((/** @type {any} */ e) => {
      const li = document.createElement('li');
      li.textContent = `${e.event} ${e.walletAddress.slice(0, 10)}… ${e.timestamp.slice(11, 19)}`;
      return li;
    }),
  );
}
setInterval(showEvents, 1000);
