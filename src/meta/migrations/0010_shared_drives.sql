-- Shared drives (docs/sharing.md): a drive of kind 'shared' has no owner;
-- its members — users or groups — hold a role on all of it (PERSISTED: 1
-- viewer, 2 editor, 3 manager), and it has a quota of its own.
ALTER TABLE drives ADD COLUMN quota_bytes INTEGER;  -- shared drives only; NULL: none

CREATE TABLE drive_members (
  drive_id INTEGER NOT NULL REFERENCES drives (id) ON DELETE CASCADE,
  member_user INTEGER REFERENCES users (id) ON DELETE CASCADE,
  member_group INTEGER REFERENCES user_groups (id) ON DELETE CASCADE,
  role INTEGER NOT NULL CHECK (role IN (1, 2, 3)),
  CHECK ((member_user IS NULL) <> (member_group IS NULL))
);
CREATE UNIQUE INDEX drive_members_users ON drive_members (drive_id, member_user)
  WHERE member_user IS NOT NULL;
CREATE UNIQUE INDEX drive_members_groups ON drive_members (drive_id, member_group)
  WHERE member_group IS NOT NULL;
CREATE INDEX drive_members_by_user ON drive_members (member_user) WHERE member_user IS NOT NULL;
CREATE INDEX drive_members_by_group ON drive_members (member_group) WHERE member_group IS NOT NULL;
