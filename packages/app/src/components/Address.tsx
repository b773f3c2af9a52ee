/** An address shortened for reading, whole in the tooltip and for copying. */
export function shortAddress(address: string): string {
  return address.length > 14 ? `${address.slice(0, 6)}…${address.slice(-4)}` : address;
}

export function Address({ address, full }: { address: string; full?: boolean }) {
  return (
    <span className="mono nowrap" title={address}>
      {full ? address : shortAddress(address)}
    </span>
  );
}
