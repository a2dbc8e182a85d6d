// The package's one line diff (Myers' O(ND) algorithm): the console's history view (what changed
// between two values of an entry) and the playground (www/: what condensing dropped, and how the
// canonical rendering differs from the input). Gives up (returns null) beyond `maxEdits` edits, so
// a pasted megabyte of unrelated text cannot freeze the page.

/**
 * @param {string[]} a old lines
 * @param {string[]} b new lines
 * @returns {{ op: 'same' | 'del' | 'add', text: string, a: number | null, b: number | null }[] | null}
 *   `a`/`b` are 1-based line numbers in each side
 */
export function diffLines(a, b, maxEdits = 2000) {
  // Common prefix and suffix first: most edits are local.
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start += 1;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA -= 1;
    endB -= 1;
  }
  const middle = myers(a.slice(start, endA), b.slice(start, endB), maxEdits);
  if (!middle) return null;
  const out = [];
  for (let i = 0; i < start; i += 1) out.push({ op: 'same', text: a[i], a: i + 1, b: i + 1 });
  for (const step of middle) {
    out.push({ ...step, a: step.a === null ? null : step.a + start + 1, b: step.b === null ? null : step.b + start + 1 });
  }
  for (let i = endA, j = endB; i < a.length; i += 1, j += 1) out.push({ op: 'same', text: a[i], a: i + 1, b: j + 1 });
  return out;
}

function myers(a, b, maxEdits) {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, maxEdits);
  const offset = max + 1;
  let v = new Int32Array(2 * max + 3);
  const trace = [];
  for (let d = 0; d <= max; d += 1) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]) ? v[offset + k + 1] : v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x += 1;
        y += 1;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, v, a, b, d, offset);
    }
  }
  return null;
}

function backtrack(trace, last, a, b, d, offset) {
  const steps = [];
  let x = a.length;
  let y = b.length;
  for (let depth = d; depth > 0; depth -= 1) {
    const v = trace[depth];
    const k = x - y;
    const prevK = k === -depth || (k !== depth && v[offset + k - 1] < v[offset + k + 1]) ? k + 1 : k - 1;
    const prevX = v[offset + prevK];
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      x -= 1;
      y -= 1;
      steps.push({ op: 'same', text: a[x], a: x, b: y });
    }
    if (x === prevX) {
      y -= 1;
      steps.push({ op: 'add', text: b[y], a: null, b: y });
    } else {
      x -= 1;
      steps.push({ op: 'del', text: a[x], a: x, b: null });
    }
  }
  while (x > 0 && y > 0) {
    x -= 1;
    y -= 1;
    steps.push({ op: 'same', text: a[x], a: x, b: y });
  }
  return steps.reverse();
}
