-- The change log's order is the commit order without serialising the
-- commits of a container's writers. Until now every logging transaction
-- took the container's log lock exclusively at commit and held it through
-- its WAL flush, so concurrent writers of one container committed one
-- flush at a time (pgbench, 16 clients inserting into one items table:
-- 360 commits/s with the lock, 2,900-3,200 without).
--
-- Now a writer takes the lock SHARED before drawing its entries' seqs (the
-- trigger function cosmos.log_change of migration 0018) and
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
