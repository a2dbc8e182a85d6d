// Profile format (behaviour §1.2, §1.3, §1.6)
import { invoke, json, piecesFromWire, profileFromWire, profileToWire, text } from '../wire.js';
import { parsed } from './arguments.js';

export function parseProfile(input) {
  const t = text('parseProfile', 'text', input);
  return profileFromWire(t, invoke((g) => g.parseProfile(t)));
}
export function renderProfile(profile) {
  let wire = profileToWire(profile);
  if (wire !== undefined) {
    let out = invoke((g) => g.renderProfileLines(wire.head, wire.text, wire.counts, wire.knownBits));
    // "1": the sections need canonicalising, which reads every line — send them all.
    if (out === '1') {
      wire = profileToWire(profile, false);
      out = wire === undefined ? '' : invoke((g) => g.renderProfileLines(wire.head, wire.text, wire.counts, 0));
    }
    if (out !== '') return piecesFromWire(wire, out);
  }
  const p = json('renderProfile', 'profile', profile);
  return invoke((g) => g.renderProfile(p ?? 'null'));
}
export function emptyProfile(userId, now) {
  const u = text('emptyProfile', 'userId', userId);
  const n = json('emptyProfile', 'now', now);
  return parsed(invoke((g) => g.emptyProfile(u, n ?? 'null')));
}
export function profileBody(input) {
  const t = text('profileBody', 'text', input);
  return invoke((g) => g.profileBody(t));
}
export function normaliseModelBody(input) {
  const t = text('normaliseModelBody', 'text', input);
  return invoke((g) => g.normaliseModelBody(t));
}
export function isWellFormedBody(input) {
  const t = text('isWellFormedBody', 'text', input);
  return invoke((g) => g.isWellFormedBody(t));
}
export function assembleProfile(body, options) {
  const b = text('assembleProfile', 'body', body);
  const o = json('assembleProfile', 'options', options);
  return invoke((g) => g.assembleProfile(b, o ?? 'null'));
}
