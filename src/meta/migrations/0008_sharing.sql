-- Sharing (docs/sharing.md): groups of users (nested), and grants of a
-- role on a node to a user or a group.
--
-- Groups are managed by administrators. A member is a user or another
-- group (never both in one row); the domain refuses a membership that
-- would make a cycle, and membership queries use UNION so a cycle written
-- behind its back still terminates.
CREATE TABLE user_groups (
  id INTEGER PRIMARY KEY,
  public_id TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  name_key TEXT NOT NULL UNIQUE,       -- lower-cased name: unique regardless of case
  created_at INTEGER NOT NULL
);

CREATE TABLE group_members (
  group_id INTEGER NOT NULL REFERENCES user_groups (id) ON DELETE CASCADE,
  member_user INTEGER REFERENCES users (id) ON DELETE CASCADE,
  member_group INTEGER REFERENCES user_groups (id) ON DELETE CASCADE,
  CHECK ((member_user IS NULL) <> (member_group IS NULL))
);
CREATE UNIQUE INDEX group_members_users ON group_members (group_id, member_user)
  WHERE member_user IS NOT NULL;
CREATE UNIQUE INDEX group_members_groups ON group_members (group_id, member_group)
  WHERE member_group IS NOT NULL;
CREATE INDEX group_members_by_user ON group_members (member_user) WHERE member_user IS NOT NULL;
CREATE INDEX group_members_by_group ON group_members (member_group) WHERE member_group IS NOT NULL;

-- A grant gives its grantee a role on a node and everything below it
-- (resolved by walking the node's ancestors, so a node moved out of a
-- shared folder leaves the grant behind at once). role is PERSISTED:
-- 1 viewer, 2 editor, 3 manager. Deleting the node (for good), the user or
-- the group deletes the grant.
CREATE TABLE grants (
  id INTEGER PRIMARY KEY,
  public_id TEXT NOT NULL UNIQUE,
  node_id INTEGER NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
  grantee_user INTEGER REFERENCES users (id) ON DELETE CASCADE,
  grantee_group INTEGER REFERENCES user_groups (id) ON DELETE CASCADE,
  role INTEGER NOT NULL CHECK (role IN (1, 2, 3)),
  may_reshare INTEGER NOT NULL DEFAULT 0 CHECK (may_reshare IN (0, 1)),
  expires_at INTEGER,                  -- ms since epoch; NULL: never
  created_by INTEGER REFERENCES users (id) ON DELETE SET NULL,
  created_at INTEGER NOT NULL,
  CHECK ((grantee_user IS NULL) <> (grantee_group IS NULL))
);
CREATE UNIQUE INDEX grants_node_user ON grants (node_id, grantee_user) WHERE grantee_user IS NOT NULL;
CREATE UNIQUE INDEX grants_node_group ON grants (node_id, grantee_group) WHERE grantee_group IS NOT NULL;
CREATE INDEX grants_by_user ON grants (grantee_user, node_id) WHERE grantee_user IS NOT NULL;
CREATE INDEX grants_by_group ON grants (grantee_group, node_id) WHERE grantee_group IS NOT NULL;
CREATE INDEX grants_by_creator ON grants (created_by);
