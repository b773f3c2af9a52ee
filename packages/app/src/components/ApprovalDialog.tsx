/**
 * The wallet's approvals as dialogs: each names the site that asks (its origin) and what it asks,
 * in words, with the raw details a developer wants to check.
 */
import { type ApprovalRequest, siweDomainOf } from '@wharf/wallet';
import { formatEther } from '../text/ether.js';
import { answer, useCurrentApproval } from '../wallet/approvalQueue.js';
import { Address } from './Address.js';
import { Button } from './Button.js';
import { Dialog } from './Dialog.js';

function describe(request: ApprovalRequest): { title: string; body: React.ReactNode; confirm: string } {
  switch (request.type) {
    case 'requestAccounts':
      return {
        title: 'Connect to this site?',
        confirm: 'Connect',
        body: (
          <p>
            It will see your address{' '}
            {request.accounts.map((a) => (
              <Address key={a} address={a} />
            ))}{' '}
            and can ask you to sign and send transactions.
          </p>
        ),
      };
    case 'addEthereumChain':
      return {
        title: request.existingChain ? 'Add a new RPC URL?' : 'Add a network?',
        confirm: request.existingChain ? 'Add RPC URL' : 'Add network',
        body: (
          <dl className="kv">
            <dt>Network</dt>
            <dd>{request.chain.chainName}</dd>
            <dt>Chain id</dt>
            <dd>
              {BigInt(request.chain.chainId).toString()} ({request.chain.chainId})
            </dd>
            <dt>RPC URL</dt>
            <dd className="mono">{request.chain.rpcUrls[0]}</dd>
            <dt>Currency</dt>
            <dd>{request.chain.nativeCurrency.symbol}</dd>
          </dl>
        ),
      };
    case 'switchEthereumChain':
      return {
        title: 'Switch network?',
        confirm: 'Switch',
        body: (
          <dl className="kv">
            <dt>From</dt>
            <dd>chain {BigInt(request.fromChainId).toString()}</dd>
            <dt>To</dt>
            <dd>
              {request.chain.chainName} (chain {BigInt(request.chain.chainId).toString()})
            </dd>
            <dt>RPC URL</dt>
            <dd className="mono">{request.chain.rpcUrls[0]}</dd>
          </dl>
        ),
      };
    case 'signMessage': {
      // The wallet already refused a sign-in for any other site than the asking one.
      const signsInTo = siweDomainOf(request.message);
      return {
        title: signsInTo ? `Sign in to ${signsInTo}?` : 'Sign this message?',
        confirm: signsInTo ? 'Sign in' : 'Sign',
        body: <pre className="message-preview">{request.message}</pre>,
      };
    }
    case 'signTypedData':
      return {
        title: 'Sign typed data?',
        confirm: 'Sign',
        body: <pre className="message-preview">{JSON.stringify(request.typedData, null, 2)}</pre>,
      };
    default: {
      const tx = request.transaction as { to?: string; value?: string; data?: string };
      return {
        title: request.type === 'sendTransaction' ? 'Send this transaction?' : 'Sign this transaction?',
        confirm: request.type === 'sendTransaction' ? 'Send' : 'Sign',
        body: (
          <dl className="kv">
            <dt>From</dt>
            <dd>
              <Address address={request.address} />
            </dd>
            <dt>To</dt>
            <dd>{tx.to ? <Address address={tx.to} /> : 'new contract'}</dd>
            <dt>Value</dt>
            <dd>{formatEther(BigInt(tx.value ?? '0x0'))} ETH</dd>
            <dt>Chain</dt>
            <dd>{BigInt(request.chainId).toString()}</dd>
            {tx.data && tx.data !== '0x' ? (
              <>
                <dt>Data</dt>
                <dd className="mono xs">{tx.data.length > 74 ? `${tx.data.slice(0, 74)}…` : tx.data}</dd>
              </>
            ) : null}
          </dl>
        ),
      };
    }
  }
}

export function ApprovalDialog() {
  const request = useCurrentApproval();
  if (!request) return null;
  const { title, body, confirm } = describe(request);
  return (
    <Dialog
      title={title}
      labelledBy="approval-title"
      onCancel={() => answer(request, false)}
      actions={
        <>
          {/* Focus starts on Reject: an Enter meant for the page never approves. */}
          <Button onClick={() => answer(request, false)} data-autofocus>
            Reject
          </Button>
          <Button variant="primary" onClick={() => answer(request, true)}>
            {confirm}
          </Button>
        </>
      }
    >
      <div className="row">
        <span className="muted small">Requested by</span>
        <span className="origin-chip" data-testid="approval-origin">
          {request.origin}
        </span>
      </div>
      {body}
      <p className="muted xs mono">{request.method}</p>
    </Dialog>
  );
}
