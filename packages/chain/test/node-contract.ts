/** A small contract compiled once with solc-js (Prague target) for the client tests. */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export const STORE_SOURCE = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Store {
  uint256 public value;
  event Stored(address indexed who, uint256 value);
  function set(uint256 v) external { value = v; emit Stored(msg.sender, v); }
  function fail() external pure { revert("nope"); }
}`;

let compiled: { abi: any[]; bytecode: `0x${string}` } | undefined;

export function compileStore(): { abi: any[]; bytecode: `0x${string}` } {
  if (compiled) return compiled;
  const solc = require('solc');
  const input = {
    language: 'Solidity',
    sources: { 'Store.sol': { content: STORE_SOURCE } },
    settings: { evmVersion: 'prague', outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (out.errors ?? []).filter((e: any) => e.severity === 'error');
  if (errors.length) throw new Error(errors.map((e: any) => e.formattedMessage).join('\n'));
  const c = out.contracts['Store.sol'].Store;
  compiled = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
  return compiled;
}
