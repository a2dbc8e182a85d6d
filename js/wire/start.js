// Starting the instance: the core's hooks into JS (wake a task, cancel a host call, load a table)
// are handed to instance.js here, so instance.js imports none of the modules that call into it.
import { cancelHostCall } from './host-calls.js';
import { setHooks, started as startInstance } from './instance.js';
import { tableHook } from './tables.js';
import { wake } from './tasks.js';

/** Called by an entry point once the glue is initialised. */
export function started() {
  setHooks(wake, cancelHostCall, tableHook);
  startInstance();
}
