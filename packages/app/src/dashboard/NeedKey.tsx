/** Shown where a panel needs the project's API key and this page does not hold one. */
export function NeedKey() {
  return (
    <div className="alert alert-info">
      <div className="grow">
        <p>
          This uses the notifications API with the project's key. Generate a key, or paste a saved one, in the
          API key panel.
        </p>
      </div>
    </div>
  );
}
