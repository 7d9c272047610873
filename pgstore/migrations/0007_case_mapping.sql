-- Case mapping of LOWER, UPPER and the case-insensitive string functions
-- (pgstore/sqlgen). The service maps case like .NET's ToLowerInvariant /
-- ToUpperInvariant: every letter, not only ASCII, one character at a time
-- (UPPER("straße") is "STRAßE"). Under the managed cluster's "C"
-- collation, PostgreSQL's lower()/upper() change ASCII letters only, so
-- these functions pick, once, the best collation the server has:
--   1. libc's C.UTF-8 (simple, per-character mapping: as .NET),
--   2. ICU's root locale (full mapping: also every letter, but ß → SS),
--   3. the database's own (ASCII only under "C").
-- cosmos.fold (0005) is redefined on the same choice, so case-insensitive
-- comparisons agree with LOWER.
DO $do$
DECLARE
  coll text;
BEGIN
  IF getdatabaseencoding() = 'UTF8' THEN
    SELECT quote_ident(collname) INTO coll FROM pg_collation
      WHERE collprovider = 'c' AND lower(collname) IN ('c.utf8', 'c.utf-8') AND collencoding IN (-1, 6)
      ORDER BY collname LIMIT 1;
    IF coll IS NULL THEN
      SELECT quote_ident(collname) INTO coll FROM pg_collation WHERE collname = 'und-x-icu';
    END IF;
  END IF;
  IF coll IS NULL THEN
    coll := '"default"';
  END IF;
  EXECUTE format($f$CREATE FUNCTION cosmos.lower_text(s text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS 'SELECT lower(s COLLATE %s)'$f$, coll);
  EXECUTE format($f$CREATE FUNCTION cosmos.upper_text(s text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS 'SELECT upper(s COLLATE %s)'$f$, coll);
  EXECUTE format($f$CREATE OR REPLACE FUNCTION cosmos.fold(s text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS 'SELECT lower(s COLLATE %s)'$f$, coll);
END
$do$;
