/** The chain RPC URL the app uses, with an override kept in this browser. */
import { type FormEvent, useState } from 'react';
import { type ChainConfig, setRpcOverride } from '../wallet/chainConfig.js';
import { Button } from './Button.js';
import { Field } from './Field.js';

const sourceLabel = {
  override: 'set in this browser',
  server: 'from the platform server',
  default: 'default',
};

export function RpcSettings({ config, onChange }: { config: ChainConfig; onChange: () => void }) {
  const [url, setUrl] = useState(config.rpcUrl);
  const [error, setError] = useState<string>();
  const save = (event: FormEvent) => {
    event.preventDefault();
    try {
      const parsed = new URL(url);
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error();
    } catch {
      setError('An http(s) URL, such as http://127.0.0.1:8545');
      return;
    }
    setError(undefined);
    setRpcOverride(url);
    onChange();
  };
  return (
    <form className="card" onSubmit={save}>
      <div className="card-body stack">
        <h3>Chain RPC</h3>
        <Field
          label="JSON-RPC URL"
          htmlFor="rpc-url"
          error={error}
          hint={`Chain id ${config.chainId} · ${sourceLabel[config.source]}`}
        >
          <input id="rpc-url" className="input mono" value={url} onChange={(e) => setUrl(e.target.value)} />
        </Field>
        <div className="row">
          <Button type="submit" size="sm" disabled={url === config.rpcUrl}>
            Save
          </Button>
          {config.source === 'override' ? (
            <Button
              size="sm"
              variant="ghost"
              onClick={() => {
                setRpcOverride(null);
                onChange();
              }}
            >
              Reset
            </Button>
          ) : null}
        </div>
      </div>
    </form>
  );
}
