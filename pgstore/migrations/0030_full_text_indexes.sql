-- Full-text indexes (pgstore/fulltextindex.go): each path of a
-- container's indexingPolicy.fullTextIndexes becomes a GIN index on its
-- items table over cosmos.fts_vector(<configuration>, <the path's value>)
-- (0028), the processed text the full-text functions read. The
-- configuration is written into the index definition as a constant
-- regconfig ('pg_catalog.english'::regconfig: schema-qualified, so its
-- lookup, done once when the DDL is parsed, does not depend on
-- search_path) and the query translator writes the same constant, which is
-- what lets PostgreSQL match the two expressions. fts_vector is IMMUTABLE
-- and safe to index: given a configuration OID it calls only immutable
-- functions (jsonb_typeof, #>>, cosmos.fold's lower(), to_tsvector with a
-- regconfig argument); like any index over text search or collation-aware
-- lower-casing, the index would need a REINDEX if the server's
-- dictionaries or ICU version changed what they produce.
--
-- A FullTextContains / All / Any filter keeps its exact predicate
-- (cosmos.fts_match) and gains the conjunct
-- `fts_vector(cfg, path) @@ cosmos.fts_query(cfg, terms, all)`, which every
-- document the exact predicate keeps satisfies, and which the GIN index
-- answers.

-- fts_query is a text search query that every document whose processed
-- text holds the terms (all of them when wanted_all, else one) matches:
-- each term's tokens ANDed (plainto_tsquery parses a term with the parser
-- and dictionaries that fts_lexemes uses, so its tokens are the term's),
-- the terms ANDed or ORed. NULL (which matches nothing) when no document
-- can: no term, or, with wanted_all, a term without tokens (only stop
-- words), or, without, no term with tokens. A term without tokens is
-- tested with fts_lexemes first so that plainto_tsquery never meets one
-- (it would send the client a NOTICE).
CREATE FUNCTION cosmos.fts_query(cfg regconfig, terms text[], wanted_all boolean) RETURNS tsquery
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  q tsquery;
  p tsquery;
  t text;
BEGIN
  FOREACH t IN ARRAY coalesce(terms, '{}') LOOP
    IF t IS NULL OR cardinality(cosmos.fts_lexemes(cfg, t)) = 0 THEN
      IF wanted_all THEN
        RETURN NULL;
      END IF;
      CONTINUE;
    END IF;
    p := plainto_tsquery(cfg, cosmos.fold(t));
    IF q IS NULL THEN
      q := p;
    ELSIF wanted_all THEN
      q := q && p;
    ELSE
      q := q || p;
    END IF;
  END LOOP;
  RETURN q;
END
$$;

-- oversized_path_indexes (0021) learns the full-text indexes
-- (items_<n>_f_<hash>): their entries are single tokens, never too long,
-- but computing a document's processed text fails (program_limit_exceeded,
-- naming no index) when it would exceed the 1 MB a tsvector holds. Such a
-- full-text index is a candidate when evaluating its expression on one of
-- the bodies fails that way; the btree path indexes are tested as before.
CREATE OR REPLACE FUNCTION cosmos.oversized_path_indexes(tbl regclass, bodies text[]) RETURNS text[]
LANGUAGE plpgsql STABLE AS $$
DECLARE
  r record;
  big boolean;
  names text[] := '{}';
  docs CONSTANT text := $d$(SELECT CASE WHEN strpos(b, '\u0000') = 0 THEN b::jsonb
              ELSE regexp_replace(b, '(?<!\\)((?:\\\\)*)\\u0000', '\1\\ufffd', 'g')::jsonb END AS doc
            FROM unnest($1) AS b) AS d$d$;
BEGIN
  FOR r IN SELECT c.relname::text AS name, pg_get_expr(i.indexprs, i.indrelid) AS exprs
           FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
           WHERE i.indrelid = tbl AND i.indexprs IS NOT NULL
             AND c.relname ~ '^items_[0-9]+_[pkcf]_[0-9a-f]{16}$'
  LOOP
    IF r.name ~ '_f_[0-9a-f]{16}$' THEN
      BEGIN
        EXECUTE format('SELECT count(%s) FROM %s', r.exprs, docs) USING bodies;
        big := false;
      EXCEPTION WHEN program_limit_exceeded THEN
        big := true;
      END;
    ELSE
      EXECUTE format('SELECT coalesce(bool_or(pg_column_size(ROW(%s)) > 7680), false) FROM %s', r.exprs, docs)
        INTO big USING bodies;
    END IF;
    IF big THEN
      names := names || r.name;
    END IF;
  END LOOP;
  RETURN names;
END $$;
