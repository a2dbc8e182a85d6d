// Minimal side-by-side timing: each row runs its candidates interleaved in one process, so a noisy
// machine slows both alike; the ratio is what to read, not the absolute numbers. A median of short
// samples leaves out work done once in many calls (a rare slow sample): `interleaveAsync` takes
// means over whole cycles of such work.

/** Median time per call (µs) of `fn`, sampled in batches until `ms` milliseconds have passed. */
export function timePerCall(fn, { ms = 300, batch = 0 } = {}) {
  // Calibrate the batch so one sample takes ~2 ms.
  let n = batch || 1;
  if (!batch) {
    for (;;) {
      const t0 = performance.now();
      for (let i = 0; i < n; i++) fn();
      if (performance.now() - t0 > 2 || n > 1e7) break;
      n *= 2;
    }
  }
  const samples = [];
  const end = performance.now() + ms;
  while (performance.now() < end || samples.length < 5) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) fn();
    samples.push(((performance.now() - t0) * 1000) / n);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)];
}

/** Run candidates interleaved (A, B, A, B, …) and return the median µs/call of each. */
export function compare(candidates, { rounds = 5, ms = 150 } = {}) {
  const results = candidates.map(() => []);
  for (let r = 0; r < rounds; r++) {
    candidates.forEach((c, i) => results[i].push(timePerCall(c.fn, { ms })));
  }
  return results.map((xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]);
}

export function fmtTime(us) {
  if (us >= 1000) return `${(us / 1000).toFixed(2)} ms`;
  if (us >= 1) return `${us.toFixed(2)} µs`;
  return `${(us * 1000).toFixed(0)} ns`;
}

/** Print a Markdown table. */
export function printTable(headers, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  console.log(line(headers));
  console.log(line(headers.map(() => '---')));
  for (const row of rows) console.log(line(row));
}

/** Median µs/call of an async function (sequential awaits), sampled for `ms` milliseconds. */
export async function timePerCallAsync(fn, { ms = 300 } = {}) {
  const samples = [];
  const end = performance.now() + ms;
  while (performance.now() < end || samples.length < 5) {
    const t0 = performance.now();
    let n = 0;
    do {
      await fn();
      n++;
    } while (performance.now() - t0 < 2);
    samples.push(((performance.now() - t0) * 1000) / n);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)];
}

/** `compare` for async functions. */
export async function compareAsync(candidates, { rounds = 5, ms = 150 } = {}) {
  const results = candidates.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (const [i, c] of candidates.entries()) results[i].push(await timePerCallAsync(c.fn, { ms }));
  }
  return results.map((xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]);
}

/**
 * Two async functions alternated call by call (A B, then B A, …) for `calls` calls each, `rounds`
 * times: the mean µs/call of each side per round, and the median over rounds of each. Drift of a
 * noisy machine hits both sides alike within a round, and work one side does once in N calls (the
 * SQLite history journal's fold, once in 64 writes) is in its mean when `calls` is a multiple of N.
 * Answers `[a, b, ratios]`: the medians and each round's b / a.
 */
export async function interleaveAsync(fa, fb, { rounds = 5, calls = 512 } = {}) {
  const as = [];
  const bs = [];
  for (let r = 0; r < rounds; r++) {
    let ta = 0;
    let tb = 0;
    for (let i = 0; i < calls; i++) {
      for (const side of i % 2 === 0 ? [0, 1] : [1, 0]) {
        const t0 = performance.now();
        await (side === 0 ? fa() : fb());
        const t = performance.now() - t0;
        if (side === 0) ta += t;
        else tb += t;
      }
    }
    as.push((ta * 1000) / calls);
    bs.push((tb * 1000) / calls);
  }
  const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  return [median(as), median(bs), as.map((a, i) => bs[i] / a)];
}
