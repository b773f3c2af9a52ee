// The mini app's side, bundled for the browser test: discovers the wallet with EIP-6963.
import { installIframeWallet } from '@wharf/wallet/bridge';

const w = globalThis as any;
const parentOrigin = new URLSearchParams(w.location.search).get('parent')!;
w.announced = [];
w.addEventListener('eip6963:announceProvider', (event: any) => w.announced.push(event.detail));
installIframeWallet({ parentOrigin });
w.dispatchEvent(new Event('eip6963:requestProvider'));
w.events = [];
w.announced[0].provider.on('chainChanged', (id: string) => w.events.push(['chainChanged', id]));
w.call = (method: string, params?: unknown) =>
  w.announced[0].provider.request({ method, params }).then(
    (result: unknown) => ({ result }),
    (error: any) => ({ error: { code: error.code, message: error.message } }),
  );
