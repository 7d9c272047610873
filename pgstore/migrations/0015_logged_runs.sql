-- A transactional batch (or bulk request) whose only write is one run of
-- creates, a multi-row INSERT, logs the run's entries itself when it
-- commits, in one set-based statement (pgstore/batch.go, logCreatedRun):
-- under the container's lock, as the trigger does, and just before COMMIT,
-- so the entries keep commit order. It records the seq range it logged in
-- the transaction-local setting cosmos.logged_seqs ('first:last'); the
-- commit-time trigger then skips the INSERT events of that range, which
-- are exactly the run's rows (every seq in it was drawn by that one
-- statement of this transaction). One INSERT ... SELECT of 100 rows costs
-- a fraction of 100 row-by-row inserts from the trigger. Every other
-- write is logged by the trigger as before. Only the function changes.
CREATE OR REPLACE FUNCTION cosmos.log_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    coll bigint := TG_ARGV[0]::bigint;
    dlsn bigint;
    logged text;
BEGIN
    IF TG_OP = 'INSERT' THEN
        logged := current_setting('cosmos.logged_seqs', true);
        IF logged IS NOT NULL AND logged <> '' AND NEW.seq BETWEEN split_part(logged, ':', 1)::bigint AND split_part(logged, ':', 2)::bigint THEN
            RETURN NULL; -- logged by its statement (cosmos.logged_seqs)
        END IF;
    END IF;
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
