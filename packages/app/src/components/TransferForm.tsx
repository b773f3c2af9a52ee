/**
 * Send ether and watch it land: after eth_sendTransaction we poll the pending block until the
 * transaction is in it (pre-confirmed), and show the submit-to-pending latency.
 */
import type { WalletProvider } from '@wharf/wallet';
import { type FormEvent, useState } from 'react';
import type { HDAccount } from 'viem/accounts';
import { devAccounts } from '../auth/wharfUpAccounts.js';
import type { Balances } from '../hooks/useBalances.js';
import { useAsync } from '../hooks/useAsync.js';
import { formatEther, parseEther } from '../text/ether.js';
import { shortAddress } from './Address.js';
import { Button } from './Button.js';
import { Field } from './Field.js';
import { describeError } from './States.js';

type Outcome = { hash: string; latencyMs?: number; status?: string } | { error: unknown };

export function TransferForm({
  provider,
  from,
  balances,
}: {
  provider: WalletProvider;
  from: string | undefined;
  balances: Balances;
}) {
  const dev = useAsync(() => devAccounts(), []);
  const others = (dev.data ?? []).filter((a: HDAccount) => a.address.toLowerCase() !== from?.toLowerCase());
  const [to, setTo] = useState('');
  const [amount, setAmount] = useState('1');
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>();
  const recipient = to || others[0]?.address || '';
  const value = parseEther(amount);
  const validTo = /^0x[0-9a-fA-F]{40}$/.test(recipient);
  const balance = from ? balances.values[from] : undefined;

  const send = async (event: FormEvent) => {
    event.preventDefault();
    if (!from || !validTo || value === undefined) return;
    setBusy(true);
    setOutcome(undefined);
    try {
      await provider.request({ method: 'eth_requestAccounts' });
      const started = performance.now();
      const hash = (await provider.request({
        method: 'eth_sendTransaction',
        params: [{ from, to: recipient, value: `0x${value.toString(16)}` }],
      })) as string;
      setOutcome({ hash });
      const deadline = started + 15_000;
      while (performance.now() < deadline) {
        const [pending, receipt] = (await Promise.all([
          provider.request({ method: 'eth_getBlockByNumber', params: ['pending', false] }),
          provider.request({ method: 'eth_getTransactionReceipt', params: [hash] }),
        ])) as [{ transactions?: string[] } | null, { status?: string } | null];
        if (receipt || pending?.transactions?.includes(hash)) {
          setOutcome({ hash, latencyMs: Math.round(performance.now() - started), status: receipt?.status });
          break;
        }
        await new Promise((r) => setTimeout(r, 40));
      }
    } catch (error) {
      setOutcome({ error });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="card" onSubmit={send}>
      <div className="card-header">
        <h3>Send</h3>
        {balance !== undefined ? (
          <span className="muted small">Available {formatEther(balance, 4)} ETH</span>
        ) : null}
      </div>
      <div className="card-body stack">
        <Field label="To" htmlFor="transfer-to" error={recipient && !validTo ? 'Not an address' : undefined}>
          <input
            id="transfer-to"
            className="input mono"
            list="transfer-recipients"
            placeholder={others[0]?.address ?? '0x…'}
            value={to}
            onChange={(e) => setTo(e.target.value.trim())}
            spellCheck={false}
            autoComplete="off"
          />
          <datalist id="transfer-recipients">
            {others.map((a) => (
              <option key={a.address} value={a.address}>
                Dev account {(dev.data ?? []).indexOf(a)} · {shortAddress(a.address)}
              </option>
            ))}
          </datalist>
        </Field>
        <Field
          label="Amount (ETH)"
          htmlFor="transfer-amount"
          error={value === undefined ? 'Not an amount' : undefined}
        >
          <input
            id="transfer-amount"
            className="input"
            inputMode="decimal"
            value={amount}
            onChange={(e) => setAmount(e.target.value)}
          />
        </Field>
        {outcome && 'error' in outcome ? (
          <div className="alert alert-danger" role="alert">
            {describeError(outcome.error)}
          </div>
        ) : null}
        {outcome && 'hash' in outcome ? (
          <div
            className={outcome.latencyMs === undefined ? 'alert alert-info' : 'alert alert-success'}
            role="status"
          >
            <div className="grow">
              <p>
                {outcome.latencyMs === undefined
                  ? 'Submitted; waiting for the next flashblock…'
                  : `Pre-confirmed ${outcome.latencyMs} ms after submit${outcome.status === '0x0' ? ' (reverted)' : ''}.`}
              </p>
              <p className="mono xs truncate" title={outcome.hash}>
                {outcome.hash}
              </p>
            </div>
          </div>
        ) : null}
        <div>
          <Button
            type="submit"
            variant="primary"
            busy={busy}
            disabled={!from || !validTo || value === undefined}
          >
            Send {value !== undefined ? formatEther(value, 6) : ''} ETH
          </Button>
        </div>
      </div>
    </form>
  );
}
