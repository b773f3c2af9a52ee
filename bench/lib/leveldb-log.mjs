/**
 * What LevelDB itself wrote, from the `LOG` file it keeps in its database folder: the tables it
 * made from its memtable (level 0) and those its compactions wrote. The node's disk figure
 * (/proc/pid/io) counts these with its own files; this says which database and which kind of
 * write the amplification is. LevelDB starts a new `LOG` at each open (the old one is `LOG.old`),
 * so a bench reads the one of the run it started.
 */
import fs from 'node:fs';
import path from 'node:path';

const FLUSHED = /Level-0 table #\d+: (\d+) bytes OK/;
const COMPACTED = /Compacted \d+@\d+ \+ \d+@\d+ files => (\d+) bytes/;

/**
 * Bytes LevelDB wrote into tables, per kind, as its `LOG` text says: `flushed` (memtables to
 * level 0), `compacted` (compactions' outputs; a table moved down a level is not rewritten), and
 * how many compactions.
 */
export function levelDbWritesOf(text) {
  let flushed = 0;
  let compacted = 0;
  let compactions = 0;
  for (const line of text.split('\n')) {
    const f = FLUSHED.exec(line);
    if (f) {
      flushed += Number(f[1]);
      continue;
    }
    const c = COMPACTED.exec(line);
    if (c) {
      compacted += Number(c[1]);
      compactions++;
    }
  }
  return { flushed, compacted, compactions };
}

/** levelDbWritesOf the `LOG` in database folder `dir`; zeros if there is none. */
export function levelDbWrites(dir) {
  try {
    return levelDbWritesOf(fs.readFileSync(path.join(dir, 'LOG'), 'utf8'));
  } catch {
    return { flushed: 0, compacted: 0, compactions: 0 };
  }
}
