/** The chain, live: the block being built (flashblock by flashblock), sealed blocks, latency. */
import { useState } from 'react';
import { Button } from '../components/Button.js';
import { FlashblockStrip } from '../components/FlashblockStrip.js';
import { Icon } from '../components/Icon.js';
import { ErrorAlert, Loading, describeError } from '../components/States.js';
import { shortAddress } from '../components/Address.js';
import { probeLatency } from '../chain/latencyProbe.js';
import { useChainFeed } from '../chain/useChainFeed.js';
import { useAsync } from '../hooks/useAsync.js';
import { chainConfig } from '../wallet/chainConfig.js';

const fmt = new Intl.NumberFormat('en');

function percent(used: bigint, limit: bigint): number {
  return limit === 0n ? 0 : Number((used * 10_000n) / limit) / 100;
}

export function ChainScreen() {
  const config = useAsync(() => chainConfig(), []);
  const feed = useChainFeed(config.data?.rpcUrl);
  const [latencies, setLatencies] = useState<number[]>([]);
  const [probing, setProbing] = useState(false);
  const [probeError, setProbeError] = useState<string>();
  const b = feed.building;
  // The pending block has no number over JSON-RPC; it is the head's successor.
  const head = feed.sealed[0];
  const number = b?.number ?? (head && b?.parentHash === head.hash ? head.number + 1n : undefined);

  const probe = async () => {
    if (!config.data) return;
    setProbing(true);
    setProbeError(undefined);
    try {
      const { latencyMs } = await probeLatency(config.data.rpcUrl, config.data.chainId);
      setLatencies((l) => [...l, latencyMs].slice(-20));
    } catch (e) {
      setProbeError(describeError(e));
    } finally {
      setProbing(false);
    }
  };
  const sorted = [...latencies].sort((x, y) => x - y);
  const p50 = sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)] : undefined;
  const maxLatency = Math.max(1, ...latencies);

  return (
    <main className="page">
      <div className="page-header">
        <div>
          <h1>Chain</h1>
          <p className="row row-wrap small">
            <span
              className={feed.mode === 'connecting' ? 'dot warn' : feed.error ? 'dot warn' : 'dot live'}
            />
            {feed.mode === 'websocket'
              ? 'Live over WebSocket'
              : feed.mode === 'polling'
                ? 'Polling every 200 ms'
                : 'Connecting…'}
            {config.data ? <span className="mono muted">· {config.data.rpcUrl}</span> : null}
          </p>
        </div>
      </div>
      {feed.error ? <ErrorAlert error={feed.error} title="The chain does not answer" /> : null}
      {!b && !feed.error ? <Loading label="Waiting for the first flashblock…" /> : null}
      <section className="card">
        <div className="card-header">
          <div>
            <h3>{number !== undefined ? `Block ${fmt.format(number)} being built` : 'Block being built'}</h3>
            <p className="muted small">Ten flashblocks of 200 ms, sealed every 2 s</p>
          </div>
          <div className="stat-row">
            <div className="stat">
              <span className="stat-value" data-testid="building-txs">
                {b ? fmt.format(b.txCount) : '—'}
              </span>
              <span className="stat-label">transactions</span>
            </div>
            <div className="stat">
              <span className="stat-value">{b ? `${percent(b.gasUsed, b.gasLimit).toFixed(2)}%` : '—'}</span>
              <span className="stat-label">gas used</span>
            </div>
          </div>
        </div>
        <div className="card-body stack">
          <FlashblockStrip block={b} />
          <div className="gas-bar">
            <div style={{ width: `${b ? Math.min(100, percent(b.gasUsed, b.gasLimit)) : 0}%` }} />
          </div>
          <p className="muted xs">
            {b ? `${fmt.format(b.gasUsed)} of ${fmt.format(b.gasLimit)} gas` : 'No pending block yet'}
          </p>
        </div>
      </section>

      <div className="project-grid section">
        <section className="card">
          <div className="card-header">
            <h3>Sealed blocks</h3>
          </div>
          {feed.sealed.length === 0 ? (
            <p className="card-body muted small">No sealed block seen yet.</p>
          ) : (
            <ul className="list">
              {feed.sealed.map((s) => (
                <li key={s.hash} className="list-item sealed-row">
                  <span className="block-num">#{fmt.format(s.number)}</span>
                  <div className="grow">
                    <div className="gas-bar thin">
                      <div
                        style={{
                          width: `${Math.max(s.gasUsed > 0n ? 1 : 0, percent(s.gasUsed, s.gasLimit))}%`,
                        }}
                      />
                    </div>
                    <span className="muted xs">
                      <span className="mono">{shortAddress(s.hash)}</span> · {fmt.format(s.gasUsed)} gas
                    </span>
                  </div>
                  <span className="badge">{s.txCount} tx</span>
                </li>
              ))}
            </ul>
          )}
        </section>
        <section className="card">
          <div className="card-header">
            <h3>Submit → pending</h3>
            <Button size="sm" onClick={probe} busy={probing} disabled={!config.data}>
              <Icon name="bolt" size={14} /> Send probe
            </Button>
          </div>
          <div className="card-body stack">
            <div className="stat-row">
              <div className="stat">
                <span className="stat-value" data-testid="latency-last">
                  {latencies.length ? `${latencies[latencies.length - 1]} ms` : '—'}
                </span>
                <span className="stat-label">last</span>
              </div>
              <div className="stat">
                <span className="stat-value">{p50 !== undefined ? `${p50} ms` : '—'}</span>
                <span className="stat-label">median of {latencies.length}</span>
              </div>
            </div>
            <div className="latency-bars" aria-hidden="true">
              {latencies.map((l, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: history order is the identity
                <div key={i} style={{ height: `${(100 * l) / maxLatency}%` }} title={`${l} ms`} />
              ))}
            </div>
            {probeError ? <p className="field-error">{probeError}</p> : null}
            <p className="muted xs">
              A zero-value transfer from dev account 9, timed from <code>eth_sendRawTransaction</code> to its
              appearance in the pending block.
            </p>
          </div>
        </section>
      </div>
    </main>
  );
}
