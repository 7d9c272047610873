-- The change log's order is the commit order without serialising the
-- commits of a container's writers. Until now every logging transaction
-- took the container's log lock exclusively at commit and held it through
-- its WAL flush, so concurrent writers of one container committed one
-- flush at a time (pgbench, 16 clients inserting into one items table:
-- 360 commits/s with the lock, 2,900-3,200 without).
--
-- Now a writer takes the lock SHARED before drawing its entries' seqs and
-- holds it to the end of its transaction; a reader takes it EXCLUSIVELY,
-- briefly, in cosmos.change_horizon: once granted, every transaction that
-- drew a seq of this container has ended, and every later one waits until
-- the reader lets go, so each seq up to the sequence's value at that moment
-- is final (committed and visible, or rolled back). Readers read up to that
-- horizon (pgstore/changelog.go). Writers that need their entries to stay
-- consecutive (a transactional batch, the set-based loggers of batches and
-- sweeps) still take the lock exclusively.
CREATE FUNCTION cosmos.change_horizon(coll bigint) RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    v bigint;
    called boolean;
BEGIN
    PERFORM pg_advisory_xact_lock(1128679015, (coll % 2147483647)::integer);
    SELECT last_value, is_called INTO v, called FROM cosmos.change_seq;
    IF NOT called THEN
        v := v - 1; -- not handed out yet
    END IF;
    RETURN v;
END
$$;

-- The trigger function of migration 0018 (the sweeper logs its own
-- purges), with the lock taken shared.
CREATE OR REPLACE FUNCTION cosmos.log_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    coll bigint := TG_ARGV[0]::bigint;
    dlsn bigint;
    logged text;
BEGIN
    IF TG_OP = 'DELETE' AND current_setting('cosmos.sweep_logged', true) = 'on' THEN
        RETURN NULL; -- a sweep's purge, logged by the sweeper (cosmos.sweep_logged)
    END IF;
    IF TG_OP = 'INSERT' THEN
        logged := current_setting('cosmos.logged_seqs', true);
        IF logged IS NOT NULL AND logged <> '' AND NEW.seq BETWEEN split_part(logged, ':', 1)::bigint AND split_part(logged, ':', 2)::bigint THEN
            RETURN NULL; -- logged by its statement (cosmos.logged_seqs)
        END IF;
    END IF;
    -- Shared: the writes of other transactions log at the same time and
    -- their commits share WAL flushes. A transactional batch (it has
    -- cosmos.txn_lsn) takes the lock exclusively, so that its entries stay
    -- consecutive.
    IF coalesce(current_setting('cosmos.txn_lsn', true), '') <> '' THEN
        PERFORM pg_advisory_xact_lock(1128679015, (coll % 2147483647)::integer);
    ELSE
        PERFORM pg_advisory_xact_lock_shared(1128679015, (coll % 2147483647)::integer);
    END IF;
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
