-- Full-text search (pgstore/sqlgen/functions_fulltext.go, rank.go):
-- FullTextContains, FullTextContainsAll, FullTextContainsAny and
-- FullTextScore (BM25) over PostgreSQL's text search. (0027 is left to a
-- migration of another branch.)
--
-- A string is processed as the service describes its own processing:
-- tokenized, lower-cased, stemmed and stripped of stop words, here by a
-- PostgreSQL text search configuration (pg_catalog.english for en-US, the
-- Snowball stemmer and stop list; the translator picks the configuration
-- from the container's fullTextPolicy). A term matches a document when
-- every token of the term is a token of the document (tokens, not
-- substrings; a multi-word term needs all its words, in any place). A term
-- made only of stop words matches nothing. Text is lower-cased by
-- cosmos.fold first: under the "C" collation the configurations' own
-- lower-casing leaves non-ASCII letters (É) alone.

-- fts_vector is the processed text of a string (NULL for anything else).
CREATE FUNCTION cosmos.fts_vector(cfg regconfig, v jsonb) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(v) = 'string' THEN to_tsvector(cfg, cosmos.fold(v #>> '{}')) END
$$;

-- fts_lexemes is the distinct tokens of a term, processed like documents.
CREATE FUNCTION cosmos.fts_lexemes(cfg regconfig, term text) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT tsvector_to_array(to_tsvector(cfg, cosmos.fold(term)))
$$;

-- fts_has reports whether a processed document holds every token of a
-- processed term (false for a term without tokens; NULL for no document).
CREATE FUNCTION cosmos.fts_has(doc tsvector, lex text[]) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN doc IS NOT NULL THEN cardinality(lex) > 0 AND tsvector_to_array(doc) @> lex END
$$;

-- fts_match is FullTextContains (wanted_all true, one term),
-- FullTextContainsAll (true) and FullTextContainsAny (false) of the value
-- v: undefined (NULL) when v or a term is not a string.
CREATE FUNCTION cosmos.fts_match(cfg regconfig, v jsonb, terms jsonb[], wanted_all boolean) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN jsonb_typeof(v) IS DISTINCT FROM 'string' THEN NULL
    WHEN EXISTS (SELECT 1 FROM unnest(terms) AS t(x) WHERE jsonb_typeof(t.x) IS DISTINCT FROM 'string') THEN NULL
    ELSE (SELECT to_jsonb(CASE WHEN wanted_all THEN bool_and(cosmos.fts_has(d.doc, cosmos.fts_lexemes(cfg, t.x #>> '{}')))
                               ELSE coalesce(bool_or(cosmos.fts_has(d.doc, cosmos.fts_lexemes(cfg, t.x #>> '{}'))), false) END)
          FROM (SELECT cosmos.fts_vector(cfg, v) AS doc) AS d, unnest(terms) AS t(x))
  END
$$;

-- fts_length is the number of tokens of a processed document (stop words
-- excluded), its length for BM25. (A tsvector keeps at most 255
-- positions of one token: longer repetitions count as 255.)
CREATE FUNCTION cosmos.fts_length(doc tsvector) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(sum(coalesce(array_length(u.positions, 1), 1)), 0)::bigint FROM unnest(doc) AS u
$$;

-- fts_tf is how often a processed term occurs in a processed document:
-- the count of its rarest token (0 when one is missing or the term has no
-- token), so that a document holds a term as many times as all its words.
CREATE FUNCTION cosmos.fts_tf(doc tsvector, lex text[]) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN cardinality(lex) = 0 THEN 0 ELSE coalesce(min(coalesce(
    (SELECT coalesce(array_length(u.positions, 1), 1) FROM unnest(doc) AS u WHERE u.lexeme = l.x), 0)), 0)::bigint END
  FROM unnest(lex) AS l(x)
$$;

-- fts_score is the Okapi BM25 score of a processed document for the terms
-- of one FullTextScore call, over the container's statistics: n
-- documents, total tokens of the field over all of them, and hits[i]
-- documents holding terms[i]. score = sum over the terms of
-- idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl)), with
-- idf = ln(1 + (n - df + 0.5) / (df + 0.5)), avgdl = total / n, k1 = 1.2
-- and b = 0.75 (Lucene's constants: the service publishes none). NULL
-- when the document has no such field (it ranks last).
CREATE FUNCTION cosmos.fts_score(cfg regconfig, doc tsvector, terms text[], n double precision, total double precision, hits double precision[])
RETURNS double precision
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  k1 CONSTANT double precision := 1.2;
  b CONSTANT double precision := 0.75;
  dl double precision;
  tf double precision;
  df double precision;
  score double precision := 0;
BEGIN
  IF doc IS NULL THEN
    RETURN NULL;
  END IF;
  dl := cosmos.fts_length(doc);
  FOR i IN 1 .. coalesce(cardinality(terms), 0) LOOP
    tf := cosmos.fts_tf(doc, cosmos.fts_lexemes(cfg, terms[i]));
    -- (a document holding the term is one of the n, so n, total and df
    -- are positive here)
    IF tf > 0 AND n > 0 AND total > 0 THEN
      df := greatest(coalesce(hits[i], 1), 1);
      score := score + ln(1 + (n - df + 0.5) / (df + 0.5)) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / (total / n)));
    END IF;
  END LOOP;
  RETURN score;
END
$$;
