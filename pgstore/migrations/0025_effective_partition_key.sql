-- Every item row stores its effective partition key (EPK), the upper-case
-- hex string that places it in the container's hash space, so that a
-- partition key range (or a sub-range of one, x-ms-start-epk/x-ms-end-epk)
-- is an interval of an indexed column: queries, the read feed and both
-- change feeds filter by it in SQL (pgstore/epk.go).
--
-- The EPK is a MurmurHash of the partition key, computed in Go
-- (emulator.EffectivePartitionKey) and written by every write as a bind
-- argument. Items tables made from now on have the column NOT NULL and its
-- index (itemsTableDDL, epkIndexDDL). The tables of existing containers
-- get a nullable column here (a catalog change: no rewrite, start-up stays
-- fast), and are queued in cosmos.epk_backfill: the store fills their rows
-- in bounded batches from Go, in the background from start-up, or at once
-- for a request that filters by EPK before that (no request ever filters
-- on a NULL epk), then builds the index and dequeues the container.
DO $$
DECLARE
  t text;
BEGIN
  -- every items table: live, spare (stale from now on) and dropped ones,
  -- since the change log's trigger below reads the column
  FOR t IN SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE n.nspname = 'cosmos' AND c.relkind = 'r' AND c.relname ~ '^(dropped_)?items_[0-9]+$' LOOP
    EXECUTE format('ALTER TABLE cosmos.%I ADD COLUMN IF NOT EXISTS epk text COLLATE "C"', t);
  END LOOP;
END $$;

CREATE TABLE cosmos.epk_backfill (num bigint PRIMARY KEY);
INSERT INTO cosmos.epk_backfill (num)
SELECT num FROM cosmos.containers WHERE to_regclass(format('cosmos.%I', 'items_' || num)) IS NOT NULL;

-- The change log carries each entry's EPK too, copied from the items row by
-- the trigger (and by the set-based loggers of batches and sweeps), so the
-- all-versions feed filters entries without decoding their keys. Entries
-- logged before are filled with their container's rows.
ALTER TABLE cosmos.changes ADD COLUMN epk text COLLATE "C";

-- The trigger function of migration 0018, with epk. An UPDATE made by the
-- EPK backfill (it sets cosmos.epk_fill and changes nothing but epk: the
-- lsn stays) is not a write of the item and is not logged.
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
    ELSIF TG_OP = 'UPDATE' AND NEW.lsn = OLD.lsn AND current_setting('cosmos.epk_fill', true) = 'on' THEN
        RETURN NULL; -- the EPK backfill (cosmos.epk_fill), not a write
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
        INSERT INTO cosmos.changes (coll, seq, op, pk, id, doc_seq, lsn, prev_lsn, crts, etag, body, epk)
        VALUES (coll, nextval('cosmos.change_seq'), 'c', NEW.pk, NEW.id, NEW.seq, NEW.lsn, NULL, NEW.ts, NEW.etag, NEW.body, NEW.epk);
    ELSIF TG_OP = 'UPDATE' THEN
        IF NEW.seq <> OLD.seq THEN
            -- an expired item overwritten by a new one: its expiry is a
            -- delete, then the new item is a create
            INSERT INTO cosmos.changes (coll, seq, op, pk, id, lsn, prev_lsn, crts, ttl_expired, epk)
            VALUES (coll, nextval('cosmos.change_seq'), 'd', OLD.pk, OLD.id, nextval('cosmos.lsn_seq'), OLD.lsn, NEW.ts, true, coalesce(OLD.epk, NEW.epk));
            INSERT INTO cosmos.changes (coll, seq, op, pk, id, doc_seq, lsn, prev_lsn, crts, etag, body, epk)
            VALUES (coll, nextval('cosmos.change_seq'), 'c', NEW.pk, NEW.id, NEW.seq, NEW.lsn, NULL, NEW.ts, NEW.etag, NEW.body, NEW.epk);
        ELSE
            INSERT INTO cosmos.changes (coll, seq, op, pk, id, doc_seq, lsn, prev_lsn, crts, etag, body, epk)
            VALUES (coll, nextval('cosmos.change_seq'), 'r', NEW.pk, NEW.id, NEW.seq, NEW.lsn, OLD.lsn, NEW.ts, NEW.etag, NEW.body, NEW.epk);
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
        INSERT INTO cosmos.changes (coll, seq, op, pk, id, lsn, prev_lsn, crts, ttl_expired, epk)
        VALUES (coll, nextval('cosmos.change_seq'), 'd', OLD.pk, OLD.id,
                coalesce(dlsn, nullif(current_setting('cosmos.txn_lsn', true), '')::bigint, nextval('cosmos.lsn_seq')), OLD.lsn,
                coalesce(nullif(current_setting('cosmos.now', true), '')::bigint, extract(epoch FROM clock_timestamp())::bigint),
                coalesce(current_setting('cosmos.ttl_expired', true), '') = 'on', OLD.epk);
    END IF;
    RETURN NULL;
END
$$;
