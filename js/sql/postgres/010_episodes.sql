-- memcore schema 10 for PostgreSQL: episodes (behaviour §8.6), the messages of the turns memory
-- learned from, kept as searchable conversation memory. `body` is the episode as the core wrote it
-- (JSON text: id, userId, conversationId, role, text, at, vector?); `at` is its millisecond UTC
-- time, so text order is time order (the retention deletes by it).
CREATE TABLE IF NOT EXISTS memcore_episodes (
  id TEXT PRIMARY KEY NOT NULL,
  user_id TEXT NOT NULL,
  conversation_id TEXT NOT NULL,
  at TEXT NOT NULL,
  body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS memcore_episodes_user_at ON memcore_episodes (user_id, at);
