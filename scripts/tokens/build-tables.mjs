// Builds the binary BPE rank tables that `memcore::profile::tokens::Tokenizer::from_table` uses in
// place. Source of truth: the ranks npm `js-tiktoken` ships (the same package the exactness corpus
// is computed with), so the tables and the oracle can never disagree about a rank.
//
//   node scripts/tokens/build-tables.mjs [outDir]     (default outDir: target/tokenizer)
//
// Layout (all integers little-endian; see src/profile/tokens/table.rs for the reader). Tokens are
// stored sorted by their bytes and front-coded in blocks of 64: each is the bytes it shares with
// the one before plus its own suffix, and the first of every block is whole (a lookup binary-
// searches those, then walks one block). Sorted bytes share long prefixes, so the file is 841 KB
// gzip for o200k_base (version 1 stored every token whole with u16 offsets and u24 ranks:
// 1,254 KB). The ranks are a random permutation of the sorted order, so they stay apart in two
// byte planes: the high byte (0..3) gzips to ~2 bits a token, the low 16 bits stay as they are.
//   0   magic  "MEMCTOK\0" (8 bytes)
//   8   u32 format version (2)
//   12  encoding name, ASCII, NUL-padded to 16 bytes
//   28  u32 n_tokens (ranks are dense 0..n_tokens, verified below)
//   32  u32 suffix_len (bytes of the suffixes section)
//   36  u32 max_token_len (≤ 255)
//   40  u32 total file length (catches truncation with one comparison)
//   44  u32 blob_len (bytes of all tokens end to end, once decoded)
//   48  shared[n_tokens] u8: bytes sorted token i shares with token i - 1 (0 at a block's start)
//   ..  suffix_len[n_tokens] u8: bytes of token i after the shared ones (≥ 1: tokens are distinct)
//   ..  rank_hi[n_tokens] u8 and rank_lo[n_tokens] u16: the rank of sorted token i
//   ..  block_base[ceil(n_tokens / 64) + 1] u32: where block b's suffixes start; the last is
//       suffix_len
//   ..  suffixes: every token's own bytes, in sorted order
// Deterministic: no timestamps, a total order, so rebuilding gives identical bytes.
import { mkdirSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';

const MAGIC = Buffer.from('MEMCTOK\0', 'latin1');
const VERSION = 2;
const HEADER_LEN = 48;
const BLOCK = 64;

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
  const shared = Buffer.alloc(n);
  const suffixLen = Buffer.alloc(n);
  const rankHi = Buffer.alloc(n);
  const rankLo = Buffer.alloc(2 * n);
  const suffixes = [];
  const blockBase = new Uint32Array(Math.ceil(n / BLOCK) + 1);
  let suffixLength = 0;
  let blobLen = 0;
  let maxLen = 0;
  let previous = Buffer.alloc(0);
  order.forEach((rank, i) => {
    const token = tokens[rank];
    if (token.length > 255) throw new Error(`${encoding}: a token longer than 255 bytes`);
    let k = 0;
    if (i % BLOCK === 0) blockBase[i / BLOCK] = suffixLength;
    else while (k < previous.length && k < token.length && previous[k] === token[k]) k++;
    shared[i] = k;
    suffixLen[i] = token.length - k;
    suffixes.push(token.subarray(k));
    suffixLength += token.length - k;
    rankHi[i] = rank >> 16;
    rankLo.writeUInt16LE(rank & 0xffff, 2 * i);
    blobLen += token.length;
    maxLen = Math.max(maxLen, token.length);
    previous = token;
  });
  blockBase[blockBase.length - 1] = suffixLength;
  const bases = Buffer.alloc(4 * blockBase.length);
  blockBase.forEach((base, b) => bases.writeUInt32LE(base, 4 * b));
  const body = Buffer.concat([shared, suffixLen, rankHi, rankLo, bases, ...suffixes]);
  const header = Buffer.alloc(HEADER_LEN);
  MAGIC.copy(header, 0);
  header.writeUInt32LE(VERSION, 8);
  header.write(encoding, 12, 16, 'latin1');
  header.writeUInt32LE(n, 28);
  header.writeUInt32LE(suffixLength, 32);
  header.writeUInt32LE(maxLen, 36);
  header.writeUInt32LE(HEADER_LEN + body.length, 40);
  header.writeUInt32LE(blobLen, 44);
  return Buffer.concat([header, body]);
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
