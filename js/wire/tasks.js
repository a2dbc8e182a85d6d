// Tasks (async calls): a task handle of an async export, polled when the core wakes it.
import { MemcoreError } from '../errors.js';
import { instance, invoke, lostInstance } from './instance.js';
import { reason } from './arguments.js';

const tasks = new Map();

/**
 * Drive a task handle returned by an async export; resolves to its result read by `read`: JSON,
 * parsed, unless the export says otherwise (a frame that carries texts as they are).
 */
export function runTask(start, read = JSON.parse) {
  return new Promise((resolve, reject) => {
    let id;
    try {
      id = invoke(start);
    } catch (error) {
      reject(error);
      return;
    }
    tasks.set(id, { resolve, reject, read, scheduled: false, generation: instance.generation });
    step(id);
  });
}

export function wake(id) {
  const task = tasks.get(id);
  if (!task || task.scheduled) return;
  task.scheduled = true;
  queueMicrotask(() => step(id));
}

function step(id) {
  const task = tasks.get(id);
  if (!task) return;
  task.scheduled = false;
  if (task.generation !== instance.generation || instance.status === 'poisoned') {
    tasks.delete(id);
    task.reject(lostInstance());
    return;
  }
  let out;
  try {
    out = invoke((g) => g.taskPoll(id));
  } catch (error) {
    tasks.delete(id);
    task.reject(error);
    return;
  }
  if (out === undefined) return;
  tasks.delete(id);
  try {
    task.resolve(task.read(out));
  } catch (error) {
    task.reject(new MemcoreError('E_INTERNAL', `memcore internal error: unreadable result (${reason(error)})`));
  }
}
