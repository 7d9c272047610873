-- Server-side scripts (stored procedures, triggers, user-defined functions)
-- of a container. They live with the container: deleting it (or its
-- database) deletes them by cascade. props is the resource's JSON body
-- without system properties (id, body, and for triggers triggerType and
-- triggerOperation), stored verbatim as the emulator rendered it.
CREATE SEQUENCE cosmos.script_seq;

CREATE TABLE cosmos.scripts (
    coll_num bigint NOT NULL REFERENCES cosmos.containers (num) ON DELETE CASCADE,
    kind     text COLLATE "C" NOT NULL CHECK (kind IN ('sprocs', 'triggers', 'udfs')),
    id       text COLLATE "C" NOT NULL,
    seq      bigint NOT NULL,
    rid      text COLLATE "C" NOT NULL,
    props    text NOT NULL,
    ts       bigint NOT NULL,
    etag     text NOT NULL,
    PRIMARY KEY (coll_num, kind, id),
    UNIQUE (rid)
);
