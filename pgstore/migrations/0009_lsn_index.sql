-- The change feed reads a container's items in LSN order after a
-- continuation: every items table gets an index on lsn (new containers get
-- it from the items table DDL in pgstore, lsnIndexDDL).
DO $$
DECLARE
  n bigint;
BEGIN
  FOR n IN SELECT num FROM cosmos.containers ORDER BY num LOOP
    IF to_regclass(format('cosmos.%I', 'items_' || n)) IS NOT NULL THEN
      EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON cosmos.%I (lsn)', 'items_' || n || '_lsn', 'items_' || n);
    END IF;
  END LOOP;
END $$;
