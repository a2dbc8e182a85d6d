// Handles: core objects owned by JS objects, freed when their owner is collected.
import * as glue from '../wasm/memcore.js';
import { MemcoreError } from '../errors.js';
import { ensureReady, instance } from './instance.js';

const finalizers =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry(({ free, id, generation }) => {
        if (generation !== instance.generation || instance.status !== 'ready' || instance.depth > 0) return;
        try {
          free(glue, id);
        } catch {}
      })
    : null;

/**
 * A handle of a core object owned by `owner`, freed with `free(glue, id)` when `owner` is
 * collected. With `make` (which creates the core object and returns its id), an object whose
 * instance failed is made again in the new instance on its next use; without it, the handle
 * answers E_INTERNAL from then on (its state lived in the failed instance).
 */
export function handle(owner, make, free, kind) {
  const h = { owner, make, free, kind, id: 0, generation: -1 };
  renew(h);
  return h;
}

function renew(h) {
  h.id = h.make();
  h.generation = instance.generation;
  finalizers?.register(h.owner, { free: h.free, id: h.id, generation: h.generation }, h);
}

/**
 * Free a handle's core object now instead of when its owner is collected. Every later use is
 * `E_ARGUMENT`. Inside a call into the core (a host callback) the free waits for the call to end.
 */
export function release(h) {
  if (h.released) return;
  h.released = true;
  finalizers?.unregister(h);
  const { id, generation } = h;
  h.generation = -1;
  const free = () => {
    if (generation !== instance.generation || instance.status !== 'ready') return;
    if (instance.depth > 0) {
      queueMicrotask(free);
      return;
    }
    try {
      h.free(glue, id);
    } catch {}
  };
  free();
}

/** The id of a handle (made again after a replaced instance when it can be). */
export function live(h) {
  ensureReady();
  if (h.released) throw new MemcoreError('E_ARGUMENT', `this ${h.kind} was freed (free()); create a new one`, { argument: 'this' });
  if (h.generation !== instance.generation) {
    if (!h.remake) {
      throw new MemcoreError(
        'E_INTERNAL',
        `this ${h.kind} lived in a memcore instance that failed and was replaced; its state is lost — create a new one`,
      );
    }
    renew(h);
  }
  return h.id;
}

/** Let a handle be made again after a replaced instance (its state can be rebuilt). */
export function remakeable(h) {
  h.remake = true;
  return h;
}

export function currentGeneration() {
  return instance.generation;
}
