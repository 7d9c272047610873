-- A user's point delete reports an LSN (its response's session token);
-- its entry in the change log (metadata.lsn of the all-versions feed) now
-- carries the same LSN: the delete statement stores it in the
-- transaction-local setting cosmos.delete_lsn (pgstore.pointDeleteLSN),
-- which the commit-time trigger takes for the delete it logs and then
-- clears. Other deletes (batches, the TTL sweeper, partition key deletes)
-- draw the entry's LSN at commit as before. Only the function changes.
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
        VALUES (coll, nextval('cosmos.change_seq'), 'd', OLD.pk, OLD.id, coalesce(dlsn, nextval('cosmos.lsn_seq')), OLD.lsn,
                coalesce(nullif(current_setting('cosmos.now', true), '')::bigint, extract(epoch FROM clock_timestamp())::bigint),
                coalesce(current_setting('cosmos.ttl_expired', true), '') = 'on');
    END IF;
    RETURN NULL;
END
$$;
