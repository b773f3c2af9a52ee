/**
 * The chains the wallet knows, the current one for this app, switch, and add (through
 * wallet_addEthereumChain, so the same validation and approval dialog as for a mini app).
 */
import type { ChainRecord, Wallet, WalletProvider } from '@wharf/wallet';
import { type FormEvent, useEffect, useState } from 'react';
import { useAsync } from '../hooks/useAsync.js';
import { Button } from './Button.js';
import { Field } from './Field.js';
import { Icon } from './Icon.js';
import { ErrorAlert, Loading, describeError } from './States.js';
import { toast } from './Toasts.js';

export function ChainList({ wallet, provider }: { wallet: Wallet; provider: WalletProvider }) {
  const chains = useAsync(() => wallet.chains(), [wallet]);
  const [current, setCurrent] = useState<string>();
  const [adding, setAdding] = useState(false);

  useEffect(() => {
    void provider.request({ method: 'eth_chainId' }).then((id) => setCurrent(id as string));
    const onChanged = (id: unknown) => {
      setCurrent(id as string);
      chains.reload();
    };
    provider.on('chainChanged', onChanged);
    return () => {
      provider.removeListener('chainChanged', onChanged);
    };
  }, [provider, chains.reload]);

  const switchTo = async (chain: ChainRecord) => {
    try {
      await provider.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: chain.chainId }] });
      toast(`Switched to ${chain.chainName}`);
    } catch (e) {
      toast(describeError(e), { error: true });
    }
  };

  return (
    <section className="card">
      <div className="card-header">
        <h3>Chains</h3>
        <Button size="sm" onClick={() => setAdding((a) => !a)} aria-expanded={adding}>
          <Icon name={adding ? 'x' : 'plus'} size={14} /> {adding ? 'Close' : 'Add chain'}
        </Button>
      </div>
      {chains.error ? <ErrorAlert error={chains.error} onRetry={chains.reload} /> : null}
      {chains.loading && !chains.data ? <Loading /> : null}
      <ul className="list">
        {(chains.data ?? []).map((chain) => {
          const active = chain.chainId === current;
          return (
            <li key={chain.chainId} className="list-item">
              <span className={active ? 'dot live' : 'dot'} />
              <div className="grow">
                <div className="list-item-title">{chain.chainName}</div>
                <div className="list-item-sub">
                  {BigInt(chain.chainId).toString()} · {chain.nativeCurrency.symbol} · {chain.rpcUrls[0]}
                </div>
              </div>
              {active ? (
                <span className="badge badge-accent">Current</span>
              ) : (
                <Button size="sm" onClick={() => switchTo(chain)}>
                  Switch
                </Button>
              )}
            </li>
          );
        })}
      </ul>
      {adding ? (
        <AddChainForm
          provider={provider}
          onAdded={() => {
            setAdding(false);
            chains.reload();
          }}
        />
      ) : null}
    </section>
  );
}

function AddChainForm({ provider, onAdded }: { provider: WalletProvider; onAdded: () => void }) {
  const [chainId, setChainId] = useState('');
  const [name, setName] = useState('');
  const [rpcUrl, setRpcUrl] = useState('');
  const [symbol, setSymbol] = useState('ETH');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const id = /^0x/i.test(chainId.trim())
        ? chainId.trim().toLowerCase()
        : `0x${BigInt(chainId.trim()).toString(16)}`;
      await provider.request({
        method: 'wallet_addEthereumChain',
        params: [
          {
            chainId: id,
            chainName: name,
            rpcUrls: [rpcUrl],
            nativeCurrency: { name: symbol, symbol, decimals: 18 },
          },
        ],
      });
      toast(`Added ${name}`);
      onAdded();
    } catch (e) {
      setError(e instanceof SyntaxError ? new Error('The chain id is a number, decimal or 0x-hex.') : e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="card-footer add-chain" onSubmit={submit}>
      <div className="form-grid">
        <Field label="Chain id" htmlFor="chain-id">
          <input
            id="chain-id"
            className="input"
            value={chainId}
            onChange={(e) => setChainId(e.target.value)}
            required
          />
        </Field>
        <Field label="Name" htmlFor="chain-name">
          <input
            id="chain-name"
            className="input"
            value={name}
            onChange={(e) => setName(e.target.value)}
            required
          />
        </Field>
        <Field label="RPC URL" htmlFor="chain-rpc">
          <input
            id="chain-rpc"
            className="input mono"
            placeholder="https://…"
            value={rpcUrl}
            onChange={(e) => setRpcUrl(e.target.value)}
            required
          />
        </Field>
        <Field label="Currency symbol" htmlFor="chain-symbol">
          <input
            id="chain-symbol"
            className="input"
            value={symbol}
            onChange={(e) => setSymbol(e.target.value)}
            required
          />
        </Field>
      </div>
      {error ? <ErrorAlert error={error} /> : null}
      <Button type="submit" variant="primary" busy={busy}>
        Add chain
      </Button>
    </form>
  );
}
