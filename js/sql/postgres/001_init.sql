-- memcore schema 1 for PostgreSQL (docs/storage.md). Applied by the adapter at open inside one
-- transaction under an advisory lock, and recorded in memcore_schema. Text that is compared or
-- ordered uses COLLATE "C" (byte order), the order the core sorts ids and timestamps in.
CREATE TABLE IF NOT EXISTS memcore_entries (
  id text COLLATE "C" PRIMARY KEY,
  user_id text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  value jsonb NOT NULL,
  category text NOT NULL,
  visibility text COLLATE "C" NOT NULL,
  source_agent_id text COLLATE "C",
  group_ids jsonb NOT NULL DEFAULT '[]'::jsonb,
  source_conversation_id text,
  conflicted boolean NOT NULL DEFAULT false,
  access_count bigint NOT NULL DEFAULT 0,
  created_at text NOT NULL,
  updated_at text NOT NULL,
  updated_sort text COLLATE "C" NOT NULL,
  reserved boolean NOT NULL DEFAULT false,
  search_text text COLLATE "C"
);
CREATE UNIQUE INDEX IF NOT EXISTS memcore_entries_global_identity ON memcore_entries (user_id, key) WHERE visibility = 'global';
CREATE UNIQUE INDEX IF NOT EXISTS memcore_entries_agent_identity ON memcore_entries (user_id, key, source_agent_id) WHERE visibility IN ('self', 'group');
CREATE INDEX IF NOT EXISTS memcore_entries_user_key ON memcore_entries (user_id, key);
CREATE INDEX IF NOT EXISTS memcore_entries_user_recent ON memcore_entries (user_id, reserved, updated_sort DESC, id);
CREATE INDEX IF NOT EXISTS memcore_entries_user_accessed ON memcore_entries (user_id, reserved, access_count DESC, updated_sort DESC, id);
CREATE INDEX IF NOT EXISTS memcore_entries_agent_oldest ON memcore_entries (user_id, source_agent_id, reserved, updated_sort, id);
CREATE TABLE IF NOT EXISTS memcore_profiles (
  path text COLLATE "C" PRIMARY KEY,
  text text NOT NULL,
  version bigint NOT NULL,
  updated_at text NOT NULL
);
CREATE SEQUENCE IF NOT EXISTS memcore_profile_version;
