/** Ten slots of the block being built; each fills with the transactions its flashblock added. */
import { type BuildingBlock, SLOTS } from '../chain/blockModel.js';

export function FlashblockStrip({ block }: { block: BuildingBlock | undefined }) {
  const slots = block?.slots ?? Array.from({ length: SLOTS }, () => ({ txs: 0, gas: 0n, seen: false }));
  const most = Math.max(1, ...slots.map((s) => s.txs));
  return (
    <div className="flash-strip" role="img" aria-label="Flashblocks of the block being built">
      {slots.map((slot, i) => {
        const fill = slot.txs === 0 ? 0 : 14 + (86 * slot.txs) / most;
        const cls = ['flash-slot', slot.seen && 'seen', block?.current === i && 'current']
          .filter(Boolean)
          .join(' ');
        return (
          <div
            // biome-ignore lint/suspicious/noArrayIndexKey: the slot position is its identity
            key={i}
            className={cls}
            data-txs={slot.txs}
            title={`Flashblock ${i + 1}: ${slot.txs} tx, ${slot.gas} gas`}
          >
            <div className="flash-fill" style={{ height: `${fill}%` }} />
            <span className="flash-count">{slot.seen ? slot.txs : ''}</span>
            <span className="flash-index">{i + 1}</span>
          </div>
        );
      })}
    </div>
  );
}
