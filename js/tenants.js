// Tenants (docs/reference/storage.md, "Tenants"): one rule for every store and storage — a tenant is a
// separate space of users. A store or profile storage that can hold tenants has
// `forTenant(tenantId)`, answering a view that sees only that tenant's data; the bundled ones all
// do (the SQL stores by a prefix on every stored id, the in-memory ones and the file system by
// separate spaces). No runtime-specific imports: this runs in Workers and browsers.
import { MemcoreError } from './errors.js';

const MAX_TENANT_ID_BYTES = 128;
/** Scoped views kept per store; the least recently used goes past this. */
export const MAX_TENANT_VIEWS = 1024;

/**
 * A tenant id: a non-empty string of at most 128 UTF-8 bytes, with no control character and no
 * whitespace at either end. `E_ARGUMENT` otherwise.
 */
export function checkTenantId(tenantId, fn) {
  const ok = typeof tenantId === 'string' && tenantId.length > 0 && tenantId.trim() === tenantId
    && !/[\u0000-\u001f\u007f-\u009f]/.test(tenantId) && new TextEncoder().encode(tenantId).length <= MAX_TENANT_ID_BYTES;
  if (!ok) {
    throw new MemcoreError('E_ARGUMENT', `${fn}: a tenant id must be a non-empty string of at most ${MAX_TENANT_ID_BYTES} UTF-8 bytes, without control characters or whitespace at either end`, { function: fn, argument: 'tenantId' });
  }
  return tenantId;
}

/** A bounded map of tenant → view, made on first use; the least recently used view is dropped past MAX_TENANT_VIEWS. */
export function tenantViews(make) {
  const views = new Map();
  return (tenantId) => {
    let view = views.get(tenantId);
    if (view) {
      views.delete(tenantId);
    } else {
      view = make(tenantId);
      if (views.size >= MAX_TENANT_VIEWS) views.delete(views.keys().next().value);
    }
    views.set(tenantId, view);
    return view;
  };
}

/**
 * `store.forTenant(tenantId)`, checked: the host's store must offer it (`E_CONFIG` otherwise — a
 * store that cannot keep tenants apart is never shared between them) and answer an object.
 */
export function forTenant(store, tenantId, what, fn) {
  checkTenantId(tenantId, fn);
  if (store === null || (typeof store !== 'object' && typeof store !== 'function') || typeof store.forTenant !== 'function') {
    throw new MemcoreError('E_CONFIG', `${fn}: the ${what} has no forTenant(tenantId), so it cannot keep tenants apart; use a bundled one or add forTenant (docs/reference/storage.md, "Tenants")`, { path: what });
  }
  let view;
  try {
    view = store.forTenant(tenantId);
  } catch (error) {
    if (error instanceof MemcoreError) throw error;
    throw new MemcoreError('E_HOST', `${fn}: ${what}.forTenant failed: ${error?.message ?? error}`, { function: 'forTenant', transient: false });
  }
  if (view === null || (typeof view !== 'object' && typeof view !== 'function')) {
    throw new MemcoreError('E_HOST', `${fn}: ${what}.forTenant must answer a ${what}`, { function: 'forTenant', transient: false });
  }
  return view;
}
