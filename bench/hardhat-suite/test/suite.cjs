// The same suite on every network: deploy, move time, snapshot and revert, impersonate.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const { ethers, network } = require('hardhat');

const { abi, bytecode } = JSON.parse(fs.readFileSync(process.env.COUNTER_JSON, 'utf8'));
const WHALE = '0x00000000000000000000000000000000000a11ce';
const send = (method, params = []) => network.provider.send(method, params);

describe(`Counter on ${network.name}`, () => {
  let counter;

  before(async () => {
    const [owner] = await ethers.getSigners();
    const factory = new ethers.ContractFactory(abi, bytecode, owner);
    counter = await factory.deploy();
    await counter.waitForDeployment();
  });

  it('deploys a contract and calls it', async () => {
    await (await counter.increment()).wait();
    assert.equal(await counter.count(), 1n);
  });

  it('moves time: evm_increaseTime, then evm_mine', async () => {
    const before = (await ethers.provider.getBlock('latest')).timestamp;
    await send('evm_increaseTime', [3600]);
    await send('evm_mine');
    const after = (await ethers.provider.getBlock('latest')).timestamp;
    assert.ok(after >= before + 3600, `${after} >= ${before} + 3600`);
    // The contract sees it too.
    await (await counter.stamp()).wait();
    assert.ok((await counter.last()) >= BigInt(before + 3600));
  });

  it('takes and reverts snapshots', async () => {
    const id = await send('evm_snapshot');
    const block = await ethers.provider.getBlockNumber();
    await (await counter.increment()).wait();
    await (await counter.increment()).wait();
    assert.equal(await counter.count(), 3n);
    assert.equal(await send('evm_revert', [id]), true);
    assert.equal(await counter.count(), 1n);
    assert.equal(await ethers.provider.getBlockNumber(), block);
  });

  it('impersonates an account', async () => {
    await send('hardhat_setBalance', [WHALE, '0x56bc75e2d63100000']); // 100 ETH
    await send('hardhat_impersonateAccount', [WHALE]);
    const whale = await ethers.getSigner(WHALE);
    await (await counter.connect(whale).increment()).wait();
    assert.equal(await counter.lastCaller(), ethers.getAddress(WHALE));
    await send('hardhat_stopImpersonatingAccount', [WHALE]);
    await assert.rejects(counter.connect(whale).increment());
  });
});
