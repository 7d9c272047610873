-- Users and their permissions (issue 10). A user belongs to a database and
-- goes with it; a permission belongs to a user and goes with it (ON DELETE
-- CASCADE). Numbers come from cosmos.resource_num_seq like databases and
-- containers; the RIDs are derived from them (emulator.UserRID,
-- emulator.PermissionRID).
--
-- permissions: mode and resource are the client's text, echoed verbatim;
-- scope is resource with RID segments resolved to names where they could
-- be at write time (what resource tokens are matched against); pk is the
-- resourcePartitionKey JSON array as sent (compact), NULL when absent.
-- One user cannot hold two permissions for the same resource text and
-- partition key (users-permissions.md §2.4: exact duplicates only).
CREATE TABLE cosmos.users (
    num    bigint PRIMARY KEY,
    db_num bigint NOT NULL REFERENCES cosmos.databases (num) ON DELETE CASCADE,
    id     text COLLATE "C" NOT NULL,
    rid    text COLLATE "C" NOT NULL UNIQUE,
    ts     bigint NOT NULL,
    etag   text NOT NULL,
    UNIQUE (db_num, id)
);

CREATE TABLE cosmos.permissions (
    num      bigint PRIMARY KEY,
    user_num bigint NOT NULL REFERENCES cosmos.users (num) ON DELETE CASCADE,
    id       text COLLATE "C" NOT NULL,
    rid      text COLLATE "C" NOT NULL UNIQUE,
    mode     text NOT NULL,
    resource text NOT NULL,
    res_key  text COLLATE "C" NOT NULL,
    scope    text COLLATE "C" NOT NULL,
    pk       text,
    ts       bigint NOT NULL,
    etag     text NOT NULL,
    CONSTRAINT permissions_user_id_key UNIQUE (user_num, id)
);

CREATE UNIQUE INDEX permissions_user_resource_key ON cosmos.permissions (user_num, res_key, coalesce(pk, ''));
