/**
 * A test send through the real API (POST /api/v1/notifications/send, or its dashboard twin):
 * live character counts in code points (title 30, message 200), and each address's result.
 */
import { type FormEvent, useState } from 'react';
import type { Project, SendResult } from '@wharf/sdk';
import { Address } from '../components/Address.js';
import { Button } from '../components/Button.js';
import { CharCounter, Field } from '../components/Field.js';
import { Icon } from '../components/Icon.js';
import { ErrorAlert } from '../components/States.js';
import { checkLength } from '../text/codePoints.js';
import { useNotificationsApi } from './useNotificationsApi.js';
import { NeedKey } from './NeedKey.js';

export const TITLE_MAX = 30;
export const MESSAGE_MAX = 200;

/** Addresses separated by newlines, commas or spaces; duplicates kept (the server dedupes). */
export function splitAddresses(text: string): string[] {
  return text.split(/[\s,;]+/).filter((a) => a !== '');
}

export function TestSendPanel({ project }: { project: Project }) {
  const api = useNotificationsApi(project.projectId);
  const [appUrl, setAppUrl] = useState(project.appUrls[0] ?? '');
  const [addresses, setAddresses] = useState('');
  const [title, setTitle] = useState('');
  const [message, setMessage] = useState('');
  const [targetPath, setTargetPath] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<SendResult>();
  const [error, setError] = useState<unknown>();
  const titleCheck = checkLength(title, TITLE_MAX);
  const messageCheck = checkLength(message, MESSAGE_MAX);
  const list = splitAddresses(addresses);
  const pathError = targetPath && !targetPath.startsWith('/') ? 'Starts with /' : undefined;
  const valid =
    api &&
    appUrl &&
    list.length > 0 &&
    !titleCheck.over &&
    !titleCheck.blank &&
    !messageCheck.over &&
    !messageCheck.blank &&
    !pathError;

  const send = async (event: FormEvent) => {
    event.preventDefault();
    if (!api) return;
    setBusy(true);
    setError(undefined);
    setResult(undefined);
    try {
      setResult(
        await api.send({
          appUrl,
          walletAddresses: list,
          title,
          message,
          targetPath: targetPath || undefined,
        }),
      );
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="card section" onSubmit={send}>
      <div className="card-header">
        <h3>Test send</h3>
        <span className="muted small">
          <code>POST /api/v1/notifications/send</code>
        </span>
      </div>
      <div className="card-body stack">
        {!api ? <NeedKey /> : null}
        <div className="form-grid">
          <Field label="App URL" htmlFor="send-app">
            <select
              id="send-app"
              className="select"
              value={appUrl}
              onChange={(e) => setAppUrl(e.target.value)}
            >
              {project.appUrls.length === 0 ? <option value="">No app URL registered</option> : null}
              {project.appUrls.map((u) => (
                <option key={u}>{u}</option>
              ))}
            </select>
          </Field>
          <Field label="Target path (optional)" htmlFor="send-path" error={pathError}>
            <input
              id="send-path"
              className="input mono"
              placeholder="/"
              value={targetPath}
              onChange={(e) => setTargetPath(e.target.value)}
            />
          </Field>
        </div>
        <Field
          label="Wallet addresses"
          htmlFor="send-to"
          hint="One per line, or separated by commas."
          aside={<span className="counter">{list.length} / 1000</span>}
        >
          <textarea
            id="send-to"
            className="textarea mono"
            rows={3}
            value={addresses}
            onChange={(e) => setAddresses(e.target.value)}
            spellCheck={false}
          />
        </Field>
        <Field label="Title" htmlFor="send-title" aside={<CharCounter text={title} max={TITLE_MAX} />}>
          <input
            id="send-title"
            className={titleCheck.over ? 'input invalid' : 'input'}
            value={title}
            onChange={(e) => setTitle(e.target.value)}
          />
        </Field>
        <Field
          label="Message"
          htmlFor="send-message"
          aside={<CharCounter text={message} max={MESSAGE_MAX} />}
        >
          <textarea
            id="send-message"
            className={messageCheck.over ? 'textarea invalid' : 'textarea'}
            rows={3}
            value={message}
            onChange={(e) => setMessage(e.target.value)}
          />
        </Field>
        {error ? <ErrorAlert error={error} title="The send was refused" /> : null}
        {result ? <SendResults result={result} /> : null}
      </div>
      <div className="card-footer">
        <Button type="submit" variant="primary" busy={busy} disabled={!valid}>
          <Icon name="send" size={15} /> Send test notification
        </Button>
      </div>
    </form>
  );
}

function SendResults({ result }: { result: SendResult }) {
  return (
    <div className="stack" data-testid="send-results">
      <div className="row">
        <span className={result.success ? 'badge badge-success' : 'badge badge-warning'}>
          {result.success ? 'All delivered' : 'Partly delivered'}
        </span>
        <span className="small muted">
          {result.sentCount} sent · {result.failedCount} failed
        </span>
      </div>
      <div className="card table-wrap">
        <table className="table">
          <tbody>
            {result.results.map((r) => (
              <tr key={r.walletAddress}>
                <td>
                  <Address address={r.walletAddress} />
                </td>
                <td>
                  {r.sent ? (
                    <span className="badge badge-success">
                      <Icon name="check" size={12} /> Sent
                    </span>
                  ) : (
                    <span className="badge badge-danger">{r.failureReason ?? 'Not sent'}</span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
