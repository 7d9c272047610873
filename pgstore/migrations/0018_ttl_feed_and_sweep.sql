-- The read feed of a whole container whose TTL is on picks each page's
-- rows from an index-only scan of the unique seq index with (ts, ttl, exp)
-- included, which steps over expired rows not yet swept without reading
-- the table (pgstore feedSQL). New containers, and containers whose TTL is
-- turned on, get it from expiryIndexesDDL; this gives it to existing
-- containers with TTL on, in place of their plain seq index.
DO $$
DECLARE
  n bigint;
BEGIN
  FOR n IN SELECT num FROM cosmos.containers WHERE default_ttl IS NOT NULL ORDER BY num LOOP
    IF to_regclass(format('cosmos.%I', 'items_' || n)) IS NOT NULL THEN
      EXECUTE format('CREATE UNIQUE INDEX IF NOT EXISTS %I ON cosmos.%I (seq) INCLUDE (ts, ttl, exp)', 'items_' || n || '_seqlive_expiry', 'items_' || n);
      EXECUTE format('DROP INDEX IF EXISTS cosmos.%I', 'items_' || n || '_seq_idx');
    END IF;
  END LOOP;
END $$;

-- The TTL sweeper logs its purges itself, in one INSERT ... SELECT per
-- batch (pgstore/expiry.go, deleteExpiredIn), instead of one insert per
-- row from the commit-time trigger: a sweep batch costs about 8.8 µs a
-- row instead of 13.9 (BenchmarkSweepBatch). Its
-- transaction sets cosmos.sweep_logged; the trigger then skips its DELETE
-- events. Every other write is logged by the trigger as before, under the
-- container's log lock taken shared (migration 0020 says why and how
-- readers see the log in commit order). Only the function changes.
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
