// The real local embedding model of the recall benchmark and the end-to-end tests:
// all-MiniLM-L6-v2 with int8 weights (ONNX), run by onnxruntime-web's wasm build in Node, with its
// own WordPiece tokenizer (@huggingface/tokenizers). `scripts/setup.sh --model` installs the files.
//
// A sentence embedding as sentence-transformers makes it for this model: tokens (at most 256, the
// model's max_seq_length, truncated), the last hidden state mean-pooled over the attention mask,
// then L2-normalised.

import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import * as ort from 'onnxruntime-web';
import { Tokenizer } from '@huggingface/tokenizers';

/** The model id vectors made here belong to. */
export const MODEL_ID = 'all-minilm-l6-v2-int8';
/** The vector length of the model. */
export const DIMENSIONS = 384;
/** Tokens per text, [CLS] and [SEP] included; longer texts are truncated. */
export const MAX_TOKENS = 256;
/** Where `scripts/setup.sh --model` puts the files. */
export const DEFAULT_MODEL_DIR = fileURLToPath(
  new URL('../../target/model/all-minilm-l6-v2-int8/', import.meta.url),
);
/** Texts per forward pass: padding to the longest text of a batch costs little at this size. */
export const BATCH = 32;

const CLS = 101;
const SEP = 102;

/**
 * Loads the model and its tokenizer.
 *
 * @param {string} [dir] the folder holding model.onnx, tokenizer.json, tokenizer_config.json
 * @returns {Promise<{ model: string, dimensions: number, embed(texts: string[]): Promise<Float32Array[]>, countTokens(text: string): number }>}
 * @example
 * const m = await loadModel();
 * const [v] = await m.embed(['home_city: Lisbon']); // Float32Array(384), unit length
 */
export async function loadModel(dir = DEFAULT_MODEL_DIR) {
  const file = (name) => path.join(dir, name);
  let onnx, tokenizerJson, tokenizerConfig;
  try {
    [onnx, tokenizerJson, tokenizerConfig] = await Promise.all([
      readFile(file('model.onnx')),
      readFile(file('tokenizer.json'), 'utf8').then(JSON.parse),
      readFile(file('tokenizer_config.json'), 'utf8').then(JSON.parse),
    ]);
  } catch (error) {
    throw new Error(
      `the embedding model is not installed in ${dir} (run scripts/setup.sh --model): ${error.message}`,
    );
  }
  ort.env.wasm.numThreads = 1;
  ort.env.logLevel = 'error';
  const session = await ort.InferenceSession.create(onnx, { executionProviders: ['wasm'] });
  const tokenizer = new Tokenizer(tokenizerJson, tokenizerConfig);

  /** Token ids of one text, [CLS] … [SEP], truncated to MAX_TOKENS. */
  function tokenIds(text) {
    const { ids } = tokenizer.encode(text);
    if (ids.length <= MAX_TOKENS) return ids;
    return [...ids.slice(0, MAX_TOKENS - 1), SEP];
  }

  async function embedBatch(texts) {
    const encoded = texts.map(tokenIds);
    const width = Math.max(...encoded.map((ids) => ids.length));
    const n = texts.length;
    const inputIds = new BigInt64Array(n * width);
    const mask = new BigInt64Array(n * width);
    encoded.forEach((ids, row) => {
      ids.forEach((id, col) => {
        inputIds[row * width + col] = BigInt(id);
        mask[row * width + col] = 1n;
      });
    });
    const dims = [n, width];
    const feeds = {
      input_ids: new ort.Tensor('int64', inputIds, dims),
      attention_mask: new ort.Tensor('int64', mask, dims),
      token_type_ids: new ort.Tensor('int64', new BigInt64Array(n * width), dims),
    };
    const output = await session.run(feeds);
    const hidden = output.last_hidden_state;
    const [, seq, size] = hidden.dims;
    if (size !== DIMENSIONS || seq !== width) {
      throw new Error(`the model answered shape ${hidden.dims.join('x')}`);
    }
    const data = hidden.data;
    const vectors = encoded.map((ids, row) => {
      const v = new Float32Array(DIMENSIONS);
      // Padding sits after the real tokens, so the mask is the first ids.length positions.
      for (let t = 0; t < ids.length; t++) {
        const base = (row * seq + t) * size;
        for (let d = 0; d < size; d++) v[d] += data[base + d];
      }
      let norm = 0;
      for (let d = 0; d < size; d++) {
        v[d] /= ids.length;
        norm += v[d] * v[d];
      }
      norm = Math.sqrt(norm) || 1;
      for (let d = 0; d < size; d++) v[d] /= norm;
      return v;
    });
    for (const tensor of Object.values(output)) tensor.dispose?.();
    return vectors;
  }

  return {
    model: MODEL_ID,
    dimensions: DIMENSIONS,
    /**
     * Embeds texts in batches of BATCH, one vector per text in order.
     * @param {string[]} texts
     * @returns {Promise<Float32Array[]>}
     */
    async embed(texts) {
      if (!Array.isArray(texts) || texts.some((t) => typeof t !== 'string')) {
        throw new TypeError('embed(texts): texts must be an array of strings');
      }
      const out = [];
      for (let i = 0; i < texts.length; i += BATCH) {
        out.push(...(await embedBatch(texts.slice(i, i + BATCH))));
      }
      return out;
    },
    /**
     * The tokens the model reads for a text (after truncation), [CLS] and [SEP] included.
     * @param {string} text
     * @returns {number}
     */
    countTokens(text) {
      return tokenIds(text).length;
    },
  };
}
