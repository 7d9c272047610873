-- The writes of one transactional batch share one LSN, as in the service
-- (its _lsn is the transaction's). cosmos.txn_lsn() draws the LSN at the
-- transaction's first call and keeps it in a transaction-local setting
-- (cosmos.txn_lsn), so every later call of the same transaction returns it
-- and the next transaction draws a new one. Only a transactional batch's
-- statements call it (pgstore/items.go, lsnShared); single operations and
-- bulk draw an LSN per write from cosmos.lsn_seq as before.
CREATE FUNCTION cosmos.txn_lsn() RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    v text := current_setting('cosmos.txn_lsn', true);
BEGIN
    IF v IS NULL OR v = '' THEN
        v := nextval('cosmos.lsn_seq')::text;
        PERFORM set_config('cosmos.txn_lsn', v, true);
    END IF;
    RETURN v::bigint;
END
$$;

-- The change log's delete entries take the batch's LSN too when the
-- transaction has one (a delete inside a transactional batch); a point
-- delete keeps the LSN it reported (cosmos.delete_lsn, migration 0011);
-- other deletes (the TTL sweeper, partition key deletes) draw their own.
CREATE OR REPLACE FUNCTION cosmos.log_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    coll bigint := TG_ARGV[0]::bigint;
    dlsn bigint;
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
        -- cosmos.now (its clock); other deletes happen at PostgreSQL's time.
        -- A point delete's statement (a transaction of its own) sets
        -- cosmos.delete_lsn to the LSN it reports: the entry takes it, once.
        dlsn := nullif(current_setting('cosmos.delete_lsn', true), '')::bigint;
        IF dlsn IS NOT NULL THEN
            PERFORM set_config('cosmos.delete_lsn', '', true);
        END IF;
        INSERT INTO cosmos.changes (coll, seq, op, pk, id, lsn, prev_lsn, crts, ttl_expired)
        VALUES (coll, nextval('cosmos.change_seq'), 'd', OLD.pk, OLD.id,
                coalesce(dlsn, nullif(current_setting('cosmos.txn_lsn', true), '')::bigint, nextval('cosmos.lsn_seq')), OLD.lsn,
                coalesce(nullif(current_setting('cosmos.now', true), '')::bigint, extract(epoch FROM clock_timestamp())::bigint),
                coalesce(current_setting('cosmos.ttl_expired', true), '') = 'on');
    END IF;
    RETURN NULL;
END
$$;
