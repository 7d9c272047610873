-- How an items table stores its two copies of a document, the exact text
-- (body) and the jsonb that queries read (doc): see itemsStorageDDL in
-- pgstore/metadata.go and docs/storage-decision.md. PostgreSQL shortens a
-- row longer than about 2 KB by compressing, or moving to the TOAST table,
-- its largest column first; that was the jsonb copy, which every filtering
-- query then decompressed or fetched row by row. doc becomes MAIN, so the
-- text is shortened first, compressed with lz4 where the server has it.
-- These are catalog changes (no rewrite): rows written from now on are
-- stored the new way, older ones stay as they are until they are written
-- again. Spare tables made with the previous DDL are replaced by the table
-- pool (their DDL key changed), the others are altered here.
DO $$
DECLARE
  t text;
  lz4 boolean := EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals));
BEGIN
  FOR t IN SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE n.nspname = 'cosmos' AND c.relkind = 'r' AND c.relname ~ '^items_[0-9]+$' LOOP
    EXECUTE format('ALTER TABLE cosmos.%I ALTER COLUMN doc SET STORAGE MAIN', t);
    IF lz4 THEN
      EXECUTE format('ALTER TABLE cosmos.%I ALTER COLUMN body SET COMPRESSION lz4', t);
    END IF;
  END LOOP;
END $$;
