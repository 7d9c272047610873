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
