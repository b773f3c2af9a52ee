// A minimal mini app for the browser test, bundled for the browser: it installs the wallet bridge
// (EIP-6963 and window.ethereum) towards the platform app that frames it, and exposes
// `ask(method, params)` so the test can make requests from inside the frame.
import { installIframeWallet } from '@wharf/wallet/bridge';

const w = globalThis as any;
const parentOrigin = new URL(w.document.referrer).origin;
const { provider } = installIframeWallet({ parentOrigin, info: { name: 'Test mini app' } });

w.ask = async (method: string, params?: unknown) => {
  try {
    return { result: await provider.request(params === undefined ? { method } : { method, params }) };
  } catch (e) {
    const error = e as { code: number; message: string };
    return { error: { code: error.code, message: error.message } };
  }
};
w.document.body.innerHTML = '<h1 style="font-family:sans-serif">Test mini app</h1>';
w.miniReady = true;
