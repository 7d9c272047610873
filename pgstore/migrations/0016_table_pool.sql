-- Container create and delete without DDL on the request's path
-- (pgstore/tablepool.go).
--
-- spare_tables: items tables made in advance by a background worker, each
-- complete (cosmos.items_<num> with its primary key, seq and lsn indexes and
-- its change-log trigger) for a container number num drawn from
-- cosmos.resource_num_seq. A container create claims one (DELETE ... FOR
-- UPDATE SKIP LOCKED, in its own transaction) and takes its num. ddl_key
-- identifies the DDL that made the table: only spares made by the same DDL
-- are claimed, others are dropped by the worker. A migration applied
-- later marks every spare stale (pgstore.migrate), since the migrations
-- that change items tables go through cosmos.containers, which spares are
-- not in.
CREATE TABLE cosmos.spare_tables (
    num     bigint PRIMARY KEY,
    ddl_key text NOT NULL,
    made_at timestamptz NOT NULL DEFAULT now()
);

-- dropped_tables: items tables of deleted containers, renamed to
-- cosmos.dropped_items_<num> by the delete's transaction (which takes the
-- table's exclusive lock, as DROP TABLE does, and removes the metadata), and
-- dropped, with the container's change log, by a background worker.
CREATE TABLE cosmos.dropped_tables (
    num        bigint PRIMARY KEY,
    dropped_at timestamptz NOT NULL DEFAULT now()
);

