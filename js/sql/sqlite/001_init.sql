-- memcore schema 1 for SQLite and Cloudflare D1 (docs/storage.md). Applied by the adapters at open,
-- inside one transaction (D1: one batch), and recorded in memcore_schema. Every statement ends with
-- ";" at the end of a line: D1 runs them one by one in a batch.
CREATE TABLE IF NOT EXISTS memcore_entries (
  id TEXT PRIMARY KEY NOT NULL,
  user_id TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL CHECK (json_valid(value)),
  category TEXT NOT NULL,
  visibility TEXT NOT NULL,
  source_agent_id TEXT,
  group_ids TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(group_ids)),
  source_conversation_id TEXT,
  conflicted INTEGER NOT NULL DEFAULT 0,
  access_count INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  updated_sort TEXT NOT NULL,
  reserved INTEGER NOT NULL DEFAULT 0,
  search_text TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS memcore_entries_global_identity ON memcore_entries (user_id, key) WHERE visibility = 'global';
CREATE UNIQUE INDEX IF NOT EXISTS memcore_entries_agent_identity ON memcore_entries (user_id, key, source_agent_id) WHERE visibility IN ('self', 'group');
CREATE INDEX IF NOT EXISTS memcore_entries_user_key ON memcore_entries (user_id, key);
CREATE INDEX IF NOT EXISTS memcore_entries_user_recent ON memcore_entries (user_id, reserved, updated_sort DESC, id);
CREATE INDEX IF NOT EXISTS memcore_entries_user_accessed ON memcore_entries (user_id, reserved, access_count DESC, updated_sort DESC, id);
CREATE INDEX IF NOT EXISTS memcore_entries_agent_oldest ON memcore_entries (user_id, source_agent_id, reserved, updated_sort, id);
CREATE TABLE IF NOT EXISTS memcore_profiles (
  path TEXT PRIMARY KEY NOT NULL,
  text TEXT NOT NULL,
  version INTEGER NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS memcore_counters (
  name TEXT PRIMARY KEY NOT NULL,
  value INTEGER NOT NULL
);
INSERT OR IGNORE INTO memcore_counters (name, value) VALUES ('profile_version', 0);
