-- memcore schema 8 for SQLite and D1: API keys (docs/serving.md, "API keys"). One row per key of
-- any tenant (`tenant_id` '' is the default tenant: a key is looked up before its tenant is
-- known). `hash` is the SHA-256 of the key's secret, never the secret; `body` is the key's record
-- (user, scopes, name, times) as memcore/server wrote it; `revoked_at` is set once, by revocation.
CREATE TABLE IF NOT EXISTS memcore_api_keys (
  id TEXT PRIMARY KEY NOT NULL,
  hash TEXT NOT NULL,
  tenant_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  body TEXT NOT NULL CHECK (json_valid(body)),
  revoked_at TEXT
);
CREATE INDEX IF NOT EXISTS memcore_api_keys_tenant_user ON memcore_api_keys (tenant_id, user_id, id);
