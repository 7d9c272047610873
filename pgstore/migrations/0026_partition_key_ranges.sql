-- Partition key ranges: every container has one or more live ranges that
-- tile its effective partition key (EPK) space ["", "FF"). A range is only
-- an EPK interval over the container's one items table; a split marks the
-- range 'split' (its row stays, so its id is never reused and requests
-- naming it get 410/1002) and inserts two children. ranges_version is the
-- etag of GET .../pkranges (it changes with every split); next_range_id is
-- the id the next range made gets.
ALTER TABLE cosmos.containers
    ADD COLUMN IF NOT EXISTS ranges_version bigint NOT NULL DEFAULT 1,
    ADD COLUMN IF NOT EXISTS next_range_id integer NOT NULL DEFAULT 1;

CREATE TABLE IF NOT EXISTS cosmos.partition_key_ranges (
    coll_num      bigint NOT NULL REFERENCES cosmos.containers (num) ON DELETE CASCADE,
    id            integer NOT NULL,
    min_inclusive text COLLATE "C" NOT NULL,
    max_exclusive text COLLATE "C" NOT NULL,
    parents       integer[] NOT NULL DEFAULT '{}',
    status        text NOT NULL DEFAULT 'online' CHECK (status IN ('online', 'split')),
    lsn           bigint NOT NULL DEFAULT 0,
    rid_prefix    integer NOT NULL,
    ts            bigint NOT NULL,
    PRIMARY KEY (coll_num, id)
);

-- Existing containers keep the one range they always had: "0", ["", "FF").
INSERT INTO cosmos.partition_key_ranges (coll_num, id, min_inclusive, max_exclusive, rid_prefix, ts)
SELECT num, 0, '', 'FF', 0, ts FROM cosmos.containers
ON CONFLICT DO NOTHING;
