// A small Hardhat 2 project run against wharf, Hardhat's own network and Anvil by
// ../hardhat-suite.mjs. Nothing is compiled here (no compiler download without internet): the
// runner compiles the contract with solc-js and passes it in COUNTER_JSON.
require('@nomicfoundation/hardhat-ethers');

module.exports = {
  solidity: '0.8.24',
  networks: {
    hardhat: { chainId: 31337 },
    wharf: { url: process.env.WHARF_URL ?? 'http://127.0.0.1:8545' },
    anvil: { url: process.env.ANVIL_URL ?? 'http://127.0.0.1:8546' },
  },
  mocha: { timeout: 60_000 },
};
