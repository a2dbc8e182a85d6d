// Builds the binary BPE rank tables that `memcore::profile::tokens::Tokenizer::from_table` uses in
// place. Source of truth: the ranks npm `js-tiktoken` ships (the same package the exactness corpus
// is computed with), so the tables and the oracle can never disagree about a rank.
//
//   node scripts/tokens/build-tables.mjs [outDir]     (default outDir: target/tokenizer)
//
// Layout (all integers little-endian; see src/profile/tokens/table.rs for the reader). Tokens are
// stored sorted by their bytes, not by rank: sorted bytes share prefixes and gzip to ~40 % of the
// rank-ordered blob, and sorted order allows lookup by bucket + binary search without a hash table
// (a hash table of ranks would cost ~600 KB gzip more: it is a random permutation).
//   0   magic  "MEMCTOK\0" (8 bytes)
//   8   u32 format version (1)
//   12  encoding name, ASCII, NUL-padded to 16 bytes
//   28  u32 n_tokens (ranks are dense 0..n_tokens, verified below)
//   32  u32 blob_len (bytes of all tokens concatenated in sorted order)
//   36  u32 max_token_len
//   40  u32 total file length (catches truncation with one comparison)
//   44  u32 reserved (0)
//   48  bucket[65537] u32: tokens whose first two bytes are (b0, b1) sit in sorted positions
//       bucket[b0 * 256 + b1] .. bucket[b0 * 256 + b1 + 1]
//   ..  block_base[(n_tokens >> 6) + 1] u32 and rel[n_tokens + 1] u16: the byte offset of sorted
//       token i is block_base[i >> 6] + rel[i]; token i is blob[offset(i) .. offset(i + 1)]
//   ..  rank[n_tokens] u24: the rank of sorted token i
//   ..  blob[blob_len]
// Deterministic: no timestamps, a total order, so rebuilding gives identical bytes.
import { mkdirSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';

const MAGIC = Buffer.from('MEMCTOK\0', 'latin1');
const VERSION = 1;
const HEADER_LEN = 48;
const BUCKETS = 65536;
const BLOCK_SHIFT = 6;

function loadTokens(encoding) {
  return import(`js-tiktoken/ranks/${encoding}`).then(({ default: ranks }) => {
    const tokens = [];
    for (const line of ranks.bpe_ranks.split('\n').filter(Boolean)) {
      const [, offsetStr, ...b64] = line.split(' ');
      const offset = Number.parseInt(offsetStr, 10);
      b64.forEach((t, i) => {
        const rank = offset + i;
        if (tokens[rank] !== undefined) throw new Error(`${encoding}: duplicate rank ${rank}`);
        tokens[rank] = Buffer.from(t, 'base64');
      });
    }
    // The format relies on rank = index; fail loudly if a future js-tiktoken has gaps.
    for (let r = 0; r < tokens.length; r++) {
      if (tokens[r] === undefined) throw new Error(`${encoding}: ranks are not dense (gap at ${r})`);
    }
    return tokens;
  });
}

function buildTable(encoding, tokens) {
  const n = tokens.length;
  if (n >= 1 << 24) throw new Error(`${encoding}: too many tokens for u24 ranks`);
  const order = [...tokens.keys()].sort((x, y) => Buffer.compare(tokens[x], tokens[y]));
  for (let i = 1; i < n; i++) {
    if (Buffer.compare(tokens[order[i - 1]], tokens[order[i]]) === 0) {
      throw new Error(`${encoding}: duplicate token bytes at rank ${order[i]}`);
    }
  }
  const bucket = new Uint32Array(BUCKETS + 1);
  // bucket[k] = lower bound of the two-byte string k among the sorted tokens.
  let i = 0;
  for (let k = 0; k < BUCKETS; k++) {
    const key = Buffer.from([k >> 8, k & 255]);
    while (i < n && Buffer.compare(tokens[order[i]], key) < 0) i++;
    bucket[k] = i;
  }
  bucket[BUCKETS] = n;
  const nBlocks = (n >> BLOCK_SHIFT) + 1;
  const blockBase = new Uint32Array(nBlocks);
  const rel = new Uint16Array(n + 1);
  let blobLen = 0;
  let maxLen = 0;
  for (let j = 0; j <= n; j++) {
    if ((j & ((1 << BLOCK_SHIFT) - 1)) === 0) blockBase[j >> BLOCK_SHIFT] = blobLen;
    const r = blobLen - blockBase[j >> BLOCK_SHIFT];
    if (r > 0xffff) throw new Error(`${encoding}: block too large for u16 offsets`);
    rel[j] = r;
    if (j < n) {
      blobLen += tokens[order[j]].length;
      maxLen = Math.max(maxLen, tokens[order[j]].length);
    }
  }
  const total = HEADER_LEN + 4 * (BUCKETS + 1) + 4 * nBlocks + 2 * (n + 1) + 3 * n + blobLen;
  const out = Buffer.alloc(total);
  MAGIC.copy(out, 0);
  out.writeUInt32LE(VERSION, 8);
  out.write(encoding, 12, 16, 'latin1');
  out.writeUInt32LE(n, 28);
  out.writeUInt32LE(blobLen, 32);
  out.writeUInt32LE(maxLen, 36);
  out.writeUInt32LE(total, 40);
  let pos = HEADER_LEN;
  for (const v of bucket) pos = out.writeUInt32LE(v, pos);
  for (const v of blockBase) pos = out.writeUInt32LE(v, pos);
  for (const v of rel) pos = out.writeUInt16LE(v, pos);
  for (const r of order) pos = out.writeUIntLE(r, pos, 3);
  for (const r of order) pos += tokens[r].copy(out, pos);
  if (pos !== total) throw new Error('layout size mismatch');
  return out;
}

const outDir = process.argv[2] ?? 'target/tokenizer';
mkdirSync(outDir, { recursive: true });
for (const encoding of ['o200k_base', 'cl100k_base']) {
  const table = buildTable(encoding, await loadTokens(encoding));
  const file = join(outDir, `${encoding}.bin`);
  const same = existsSync(file) && readFileSync(file).equals(table);
  if (!same) writeFileSync(file, table);
  const gz = gzipSync(table, { level: 9 }).length;
  console.log(`${file}: ${table.length} bytes raw, ${gz} bytes gzip -9${same ? ' (unchanged)' : ''}`);
}
