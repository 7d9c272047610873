-- A transactional batch's shared LSN (cosmos.txn_lsn, migration 0012) is
-- drawn only once the transaction has its transaction ID, as a single
-- write's is (pgstore/items.go lsnEach says why: the latest-version change
-- feed judges whether a row may still be joined by a lower LSN from the
-- transaction IDs in progress, and a transaction without one yet was
-- invisible to it).
CREATE OR REPLACE FUNCTION cosmos.txn_lsn() RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    v text := current_setting('cosmos.txn_lsn', true);
BEGIN
    IF v IS NULL OR v = '' THEN
        PERFORM pg_current_xact_id();
        v := nextval('cosmos.lsn_seq')::text;
        PERFORM set_config('cosmos.txn_lsn', v, true);
    END IF;
    RETURN v::bigint;
END
$$;
