// Measures what the EVM budget's opcode checks cost (docs/decisions/0100): the same call run
// plain, with the budget's checks (EvmBudget.attach), and with an async 'step' listener.
//   npm run build && node packages/chain/scripts/measure-evm-slices.mjs [gas]
import { performance } from 'node:perf_hooks';
import { createBlock } from '@ethereumjs/block';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { createLegacyTx } from '@ethereumjs/tx';
import { Address, createAccount } from '@ethereumjs/util';
import { createVM, runTx } from '@ethereumjs/vm';
import { EvmBudget } from '../dist/execution/evmBudget.js';

const gas = BigInt(process.argv[2] ?? 50_000_000);
const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });
// Programs: a jump loop; a loop of arithmetic with a jump every ~30 ops; a keccak loop.
const programs = {
  'jump loop (5b5f56)': '5b5f56',
  'arith loop': `5b${'6001600201'.repeat(10)}5f56`, // JUMPDEST (PUSH1 1 PUSH1 2 ADD)x10 ... PUSH0 JUMP: stack grows; pop instead
  'keccak loop': '5b60205f205f56',
};
programs['arith loop'] = `5b${'600160020150'.repeat(10)}5f56`;
const to = new Address(Buffer.from('00000000000000000000000000000000000000aa', 'hex'));
const from = new Address(Buffer.from('00000000000000000000000000000000000000bb', 'hex'));

async function run(code, mode) {
  const vm = await createVM({ common: common.copy() });
  await vm.stateManager.putAccount(to, createAccount({}));
  await vm.stateManager.putCode(to, Buffer.from(code, 'hex'));
  await vm.stateManager.putAccount(from, createAccount({ balance: 10n ** 30n }));
  if (mode === 'budget') new EvmBudget(600_000).attach(vm);
  if (mode === 'step listener') {
    let n = 0;
    let sliceEnd = performance.now() + 3;
    vm.evm.events.on('step', (_s, resolve) => {
      if ((++n & 63) === 0 && performance.now() > sliceEnd) {
        setImmediate(() => {
          sliceEnd = performance.now() + 3;
          resolve();
        });
      } else resolve();
    });
  }
  const block = createBlock({ header: { gasLimit: gas * 2n, baseFeePerGas: 0n } }, { common });
  const tx = createLegacyTx({ gasLimit: gas, gasPrice: 0n, to }, { common, freeze: false });
  tx.getSenderAddress = () => from;
  // Event-loop turns while it runs: how long the longest stretch without one was.
  let last = performance.now();
  let longest = 0;
  let alive = true;
  const tick = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (alive) setImmediate(tick);
  };
  setImmediate(tick);
  const t0 = performance.now();
  const r = await runTx(vm, {
    tx,
    block,
    skipNonce: true,
    skipBalance: true,
    skipBlockGasLimitValidation: true,
  });
  const ms = performance.now() - t0;
  alive = false;
  tick();
  return { ms, longest, used: r.totalGasSpent };
}

for (const [name, code] of Object.entries(programs)) {
  for (const mode of ['plain', 'budget', 'step listener']) {
    await run(code, mode); // warm
    const a = await run(code, mode);
    const b = await run(code, mode);
    console.log(
      `${name.padEnd(20)} ${mode.padEnd(14)} ${gas} gas: ${a.ms.toFixed(0)} / ${b.ms.toFixed(0)} ms, longest stretch without a turn ${Math.max(a.longest, b.longest).toFixed(1)} ms`,
    );
  }
}
