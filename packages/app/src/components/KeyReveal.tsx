/** A freshly issued API key, shown once with a copy button. */
import { Button } from './Button.js';
import { CopyButton } from './CopyButton.js';
import { Dialog } from './Dialog.js';

export function KeyReveal({ apiKey, onClose }: { apiKey: string; onClose: () => void }) {
  return (
    <Dialog
      title="Your new API key"
      labelledBy="key-title"
      onCancel={onClose}
      actions={
        <Button variant="primary" onClick={onClose} data-autofocus>
          I saved it
        </Button>
      }
    >
      <p className="small">
        Copy it now: only its hash is stored, so this is the only time it is shown. Send it as the{' '}
        <code>x-api-key</code> header.
      </p>
      <div className="secret">
        <code data-testid="api-key">{apiKey}</code>
        <CopyButton text={apiKey} />
      </div>
    </Dialog>
  );
}
