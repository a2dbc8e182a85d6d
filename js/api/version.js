// The core's version.
import { invoke } from '../wire.js';

export function version() {
  return invoke((g) => g.version());
}
