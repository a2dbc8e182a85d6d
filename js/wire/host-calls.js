// Host calls (the JS side of src/wasm/task.rs).
import { invoke } from './instance.js';

const cancels = new Map();

/** Report the outcome of host call `id` to the core; never throws. */
export function settle(id, ok, payload) {
  cancels.delete(id);
  if (typeof payload !== 'string') {
    ok = false;
    payload = JSON.stringify({ code: 'E_INTERNAL', message: 'memcore internal error: a host answer was not encoded' });
  }
  try {
    invoke((g) => g.settleHostCall(id, ok, payload));
  } catch {
    // A failed instance: the task that waits for this call is rejected by `step`.
  }
}

/** Run `cancel` if the core abandons host call `id` (a timeout won, the task was dropped). */
export function onCancel(id, cancel) {
  cancels.set(id, cancel);
}

export function cancelHostCall(id) {
  const cancel = cancels.get(id);
  cancels.delete(id);
  if (cancel) {
    try {
      cancel();
    } catch {}
  }
}
