// Shared JSON test vectors (tests/vectors/), the same files the Rust tests replay.
import { readFileSync } from 'node:fs';

export function vectors(path) {
  return JSON.parse(readFileSync(new URL(`../vectors/${path}`, import.meta.url), 'utf8'));
}
