/** The wallet: the account and its balance at `pending`, a transfer form, chains and the RPC URL. */
import { useMemo, useState } from 'react';
import { Address } from '../components/Address.js';
import { ChainList } from '../components/ChainList.js';
import { ConnectedSites } from '../components/ConnectedSites.js';
import { CopyButton } from '../components/CopyButton.js';
import { RpcSettings } from '../components/RpcSettings.js';
import { ErrorAlert, Loading, describeError } from '../components/States.js';
import { TransferForm } from '../components/TransferForm.js';
import { useAsync } from '../hooks/useAsync.js';
import { useBalances } from '../hooks/useBalances.js';
import { formatEther } from '../text/ether.js';
import { useWallet } from '../wallet/useWallet.js';
import { usePlatform } from '../platform/PlatformContext.js';

export function WalletScreen() {
  const { session } = usePlatform();
  const [configVersion, setConfigVersion] = useState(0);
  const wallet = useWallet(session.signer, configVersion);
  const provider = useMemo(() => wallet.data?.wallet.provider(location.origin), [wallet.data]);
  const accounts = useAsync(async () => (wallet.data ? wallet.data.wallet.accounts() : []), [wallet.data]);
  const addresses = accounts.data ?? [];
  const balances = useBalances(provider, addresses);

  return (
    <main className="page">
      <div className="page-header">
        <div>
          <h1>Wallet</h1>
          <p>Balances are read at the pending block: a transfer shows within a flashblock (200 ms).</p>
        </div>
      </div>
      {wallet.error ? (
        <ErrorAlert error={wallet.error} onRetry={wallet.reload} title="The wallet did not start" />
      ) : null}
      {wallet.loading && !wallet.data ? <Loading label="Opening the wallet…" /> : null}
      {wallet.data && provider ? (
        <div className="wallet-layout">
          <div className="stack">
            <section className="card balance-card">
              <div className="card-body stack">
                <span className="muted small">Account</span>
                {addresses.map((a) => (
                  <div key={a} className="stack" style={{ gap: 4 }}>
                    <div className="row row-wrap">
                      <Address address={a} full />
                      <CopyButton text={a} />
                    </div>
                    <div
                      className={
                        balances.changedAt[a] && Date.now() - balances.changedAt[a] < 1500
                          ? 'balance flash'
                          : 'balance'
                      }
                      data-testid="balance"
                    >
                      {balances.values[a] === undefined ? '—' : formatEther(balances.values[a], 4)}{' '}
                      <span className="balance-unit">ETH</span>
                    </div>
                  </div>
                ))}
                {balances.error ? (
                  <div className="alert alert-warning">
                    <div className="grow">
                      <strong>The chain does not answer.</strong>
                      <p>{describeError(balances.error)}</p>
                      <p>Check the RPC URL below.</p>
                    </div>
                  </div>
                ) : null}
              </div>
            </section>
            <TransferForm provider={provider} from={addresses[0]} balances={balances} />
          </div>
          <div className="stack">
            <ChainList wallet={wallet.data.wallet} provider={provider} />
            <ConnectedSites wallet={wallet.data.wallet} />
            <RpcSettings
              key={wallet.data.config.rpcUrl}
              config={wallet.data.config}
              onChange={() => setConfigVersion((v) => v + 1)}
            />
          </div>
        </div>
      ) : null}
    </main>
  );
}
