-- A path index (pgstore/autoindex.go: the query-made items_<n>_p_<hash>
-- and items_<n>_k_<hash>, the composite items_<n>_c_<hash>) refuses a row
-- whose key is too long for a btree entry. Beyond 2,704 bytes PostgreSQL
-- names the index in its error (ConstraintName), and pgstore drops that
-- index and runs the write again (pgstore/oversize.go). Beyond 8,191
-- bytes (after compression) the error comes from the tuple builder and
-- names no index: this function finds the candidates, the path indexes of
-- table tbl whose key for one of the documents bodies (item bodies, made
-- jsonb as the items table's doc column does) would take more than 7,680
-- bytes uncompressed (an entry over 8,191 bytes compressed is at least
-- that long uncompressed; the pk column of a partition-first index is at
-- most 256 bytes). The index expressions come from the catalog (the DDL
-- pgstore wrote); the bodies are a bind argument.
CREATE FUNCTION cosmos.oversized_path_indexes(tbl regclass, bodies text[]) RETURNS text[]
LANGUAGE plpgsql STABLE AS $$
DECLARE
  r record;
  big boolean;
  names text[] := '{}';
BEGIN
  FOR r IN SELECT c.relname::text AS name, pg_get_expr(i.indexprs, i.indrelid) AS exprs
           FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
           WHERE i.indrelid = tbl AND i.indexprs IS NOT NULL
             AND c.relname ~ '^items_[0-9]+_[pkc]_[0-9a-f]{16}$'
  LOOP
    EXECUTE format($q$SELECT coalesce(bool_or(pg_column_size(ROW(%s)) > 7680), false)
      FROM (SELECT CASE WHEN strpos(b, '\u0000') = 0 THEN b::jsonb
              ELSE regexp_replace(b, '(?<!\\)((?:\\\\)*)\\u0000', '\1\\ufffd', 'g')::jsonb END AS doc
            FROM unnest($1) AS b) AS d$q$, r.exprs)
      INTO big USING bodies;
    IF big THEN
      names := names || r.name;
    END IF;
  END LOOP;
  RETURN names;
END $$;
