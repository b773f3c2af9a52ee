// usage: node load.mjs URL RATE SECONDS [followerUrl...]
import { mnemonicToAccount } from 'viem/accounts';
const [url, rateS, secsS, ...fols] = process.argv.slice(2);
const RATE = Number(rateS),
  SECS = Number(secsS),
  SENDERS = 20;
const rpc = async (u, m, p = []) =>
  await (
    await fetch(u, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: m, params: p }),
    })
  ).json();
const accts = Array.from({ length: SENDERS }, (_, i) =>
  mnemonicToAccount('test test test test test test test test test test test junk', { addressIndex: i }),
);
const nonces = await Promise.all(
  accts.map(async (a) => Number((await rpc(url, 'eth_getTransactionCount', [a.address, 'pending'])).result)),
);
const per = Math.floor((RATE * SECS) / SENDERS);
const signed = await Promise.all(
  accts.map((a, i) =>
    Promise.all(
      Array.from({ length: per }, () =>
        a.signTransaction({
          to: `0x${(0xf011000 + i).toString(16).padStart(40, '0')}`,
          value: 1n,
          nonce: nonces[i]++,
          gas: 21000n,
          maxFeePerGas: 10_000_000_000n,
          maxPriorityFeePerGas: 1n,
          chainId: 31337,
          type: 'eip1559',
        }),
      ),
    ),
  ),
);
const interval = (1000 * SENDERS) / RATE;
const start = Date.now();
const ms = [];
let fail = 0;
const ans = [];
await Promise.all(
  signed.map(async (list, i) => {
    for (const [k, raw] of list.entries()) {
      const due = start + k * interval + (i * interval) / SENDERS;
      if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
      const t0 = Date.now();
      ans.push(
        rpc(url, 'eth_sendRawTransaction', [raw]).then((r) => {
          if (r.error) fail++;
          ms.push(Date.now() - t0);
        }),
      );
    }
  }),
);
const rate = (per * SENDERS) / ((Date.now() - start) / 1000);
await Promise.all(ans);
ms.sort((a, b) => a - b);
console.log(
  `rate ${rate.toFixed(0)}/s sends p50 ${ms[ms.length >> 1]} max ${ms[ms.length - 1]} fail ${fail}`,
);
