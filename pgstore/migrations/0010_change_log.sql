-- The change log behind the all-versions-and-deletes change feed (A-IM:
-- Full-Fidelity Feed). Every items table gets a deferred row trigger
-- (cosmos.log_change, created with the table; see pgstore/changelog.go) that
-- records each create, replace and delete when its transaction commits:
-- writes of a rolled-back transaction never appear, and every write path
-- (point operations, batches, the TTL sweeper) is logged the same way.
--
-- seq orders the log of one container in commit order: the trigger takes a
-- per-container transaction lock before it draws seq, and holds it until
-- the commit, so a reader that has seen seq n of a container never later
-- finds a committed row of that container below n. The entries of one
-- transaction are consecutive; txid keeps them in one page of the feed.
CREATE SEQUENCE cosmos.change_seq;

CREATE TABLE cosmos.changes (
    coll        bigint NOT NULL,           -- container num
    seq         bigint NOT NULL,           -- position (the feed's continuation)
    op          "char" NOT NULL,           -- 'c' create, 'r' replace, 'd' delete
    pk          text COLLATE "C" NOT NULL, -- canonical partition key
    id          text COLLATE "C" NOT NULL,
    doc_seq     bigint,                    -- the item's seq (its _rid); NULL for deletes
    lsn         bigint NOT NULL,           -- the write's LSN
    prev_lsn    bigint,                    -- LSN of the version it replaced or deleted
    crts        bigint NOT NULL,           -- unix seconds of the write
    ttl_expired boolean NOT NULL DEFAULT false,
    etag        text,
    body        text,                      -- current image; NULL for deletes
    txid        xid8 NOT NULL DEFAULT pg_current_xact_id(), -- the writing transaction
    PRIMARY KEY (coll, seq)
);

CREATE FUNCTION cosmos.log_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    coll bigint := TG_ARGV[0]::bigint;
BEGIN
    PERFORM pg_advisory_xact_lock(1128679015, (coll % 2147483647)::integer);
    IF TG_OP = 'INSERT' THEN
        INSERT INTO cosmos.changes (coll, seq, op, pk, id, doc_seq, lsn, prev_lsn, crts, etag, body)
        VALUES (coll, nextval('cosmos.change_seq'), 'c', NEW.pk, NEW.id, NEW.seq, NEW.lsn, NULL, NEW.ts, NEW.etag, NEW.body);
    ELSIF TG_OP = 'UPDATE' THEN
        IF NEW.seq <> OLD.seq THEN
            -- an expired item overwritten by a new one: its expiry is a
            -- delete, then the new item is a create
            INSERT INTO cosmos.changes (coll, seq, op, pk, id, lsn, prev_lsn, crts, ttl_expired)
            VALUES (coll, nextval('cosmos.change_seq'), 'd', OLD.pk, OLD.id, nextval('cosmos.lsn_seq'), OLD.lsn, NEW.ts, true);
            INSERT INTO cosmos.changes (coll, seq, op, pk, id, doc_seq, lsn, prev_lsn, crts, etag, body)
            VALUES (coll, nextval('cosmos.change_seq'), 'c', NEW.pk, NEW.id, NEW.seq, NEW.lsn, NULL, NEW.ts, NEW.etag, NEW.body);
        ELSE
            INSERT INTO cosmos.changes (coll, seq, op, pk, id, doc_seq, lsn, prev_lsn, crts, etag, body)
            VALUES (coll, nextval('cosmos.change_seq'), 'r', NEW.pk, NEW.id, NEW.seq, NEW.lsn, OLD.lsn, NEW.ts, NEW.etag, NEW.body);
        END IF;
    ELSE
        -- the TTL sweeper's transaction sets cosmos.ttl_expired and
        -- cosmos.now (its clock); other deletes happen at PostgreSQL's time
        INSERT INTO cosmos.changes (coll, seq, op, pk, id, lsn, prev_lsn, crts, ttl_expired)
        VALUES (coll, nextval('cosmos.change_seq'), 'd', OLD.pk, OLD.id, nextval('cosmos.lsn_seq'), OLD.lsn,
                coalesce(nullif(current_setting('cosmos.now', true), '')::bigint, extract(epoch FROM clock_timestamp())::bigint),
                coalesce(current_setting('cosmos.ttl_expired', true), '') = 'on');
    END IF;
    RETURN NULL;
END
$$;

-- Existing containers get the trigger too.
DO $$
DECLARE
    n bigint;
BEGIN
    FOR n IN SELECT num FROM cosmos.containers LOOP
        IF to_regclass('cosmos.items_' || n) IS NOT NULL THEN
            EXECUTE format('CREATE CONSTRAINT TRIGGER log_change AFTER INSERT OR UPDATE OR DELETE ON cosmos.%I '
                || 'DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION cosmos.log_change(%L)',
                'items_' || n, n::text);
        END IF;
    END LOOP;
END
$$;
