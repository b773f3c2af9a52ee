// The platform app's side, bundled for the browser test: a wallet, and a bridge server for the
// mini app's iframe. Approvals are answered by `window.approveNext` (set by the test).
import { createWallet, localStorageStorage } from '@wharf/wallet';
import { createBridgeServer, iframeEndpoint } from '@wharf/wallet/bridge';

const w = globalThis as any;
const query = new URLSearchParams(w.location.search);
const miniUrl = query.get('mini')!;
const miniOrigin = new URL(miniUrl).origin;

w.approvals = [];
w.approveNext = true;
const wallet = createWallet({
  privateKeys: ['0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'],
  storage: localStorageStorage('wharf-test:'),
  approve: async (request) => {
    w.approvals.push({ type: request.type, origin: request.origin });
    return w.approveNext;
  },
});

const iframe = w.document.createElement('iframe');
w.document.body.appendChild(iframe);
createBridgeServer({
  provider: wallet.provider(miniOrigin),
  endpoint: iframeEndpoint({ frame: iframe.contentWindow, origin: miniOrigin }),
});
iframe.src = miniUrl;
w.walletReady = true;
