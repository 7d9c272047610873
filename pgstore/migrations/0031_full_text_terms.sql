-- Full-text terms of several words (pgstore/sqlgen/functions_fulltext.go,
-- rank.go, the hybrid search plan in emulator/hybridplan.go): the service
-- treats a term as one unit whose words are alternatives.
-- FullTextContains(c.text, 'United States') holds for a text with "United"
-- and no form of "States", and the gateway's global statistics count a
-- term's documents with one COUNTIF(FullTextContains(path, term)) per term
-- (its hitCounts), so a term's document frequency is that of "any of its
-- words". Here: a document holds a term when it holds one of the term's
-- tokens; the term's frequency in a document (BM25's tf) is the count of
-- the document's tokens that are one of the term's tokens; a term of stop
-- words only still matches nothing. (0028 required every word.)

-- fts_has reports whether a processed document holds one of the tokens of
-- a processed term (false for a term without tokens; NULL for no
-- document).
CREATE OR REPLACE FUNCTION cosmos.fts_has(doc tsvector, lex text[]) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN doc IS NOT NULL THEN cardinality(lex) > 0 AND tsvector_to_array(doc) && lex END
$$;

-- fts_tf is how often a processed term occurs in a processed document: the
-- occurrences of all its tokens (0 when it has none there or the term has
-- no token).
CREATE OR REPLACE FUNCTION cosmos.fts_tf(doc tsvector, lex text[]) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(sum(coalesce(array_length(u.positions, 1), 1)), 0)::bigint
  FROM unnest(doc) AS u WHERE u.lexeme = ANY (lex)
$$;

-- fts_query (0030) with a term's tokens ORed: plainto_tsquery ANDs the
-- tokens of a term ('unit' & 'state'); its text form joins them with
-- " & ", which no token holds (a token has no space), so replacing that
-- separator by " | " gives the term's alternatives.
CREATE OR REPLACE FUNCTION cosmos.fts_query(cfg regconfig, terms text[], wanted_all boolean) RETURNS tsquery
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
    p := replace(plainto_tsquery(cfg, cosmos.fold(t))::text, ' & ', ' | ')::tsquery;
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

-- fts_word_count is _FullTextWordCount(v): the tokens of v (stop words
-- excluded) as a JSON number, NULL (undefined) when v is not a string.
CREATE FUNCTION cosmos.fts_word_count(cfg regconfig, v jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(v) = 'string' THEN to_jsonb(cosmos.fts_length(cosmos.fts_vector(cfg, v))) END
$$;

-- fts_score_json is _FullTextScore(v, terms, n, total, hits), the
-- gateway's rewrite of FullTextScore once the statistics are known:
-- cosmos.fts_score (0028) as a JSON number, NULL (undefined) when v is not
-- a string, terms not an array of strings, n or total not numbers, or hits
-- not an array of numbers.
CREATE FUNCTION cosmos.fts_score_json(cfg regconfig, v jsonb, terms jsonb, n jsonb, total jsonb, hits jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN jsonb_typeof(v) IS DISTINCT FROM 'string' OR jsonb_typeof(terms) IS DISTINCT FROM 'array'
      OR jsonb_typeof(n) IS DISTINCT FROM 'number' OR jsonb_typeof(total) IS DISTINCT FROM 'number'
      OR jsonb_typeof(hits) IS DISTINCT FROM 'array'
      OR EXISTS (SELECT 1 FROM jsonb_array_elements(terms) AS e(x) WHERE jsonb_typeof(e.x) <> 'string')
      OR EXISTS (SELECT 1 FROM jsonb_array_elements(hits) AS e(x) WHERE jsonb_typeof(e.x) <> 'number') THEN NULL
    ELSE to_jsonb(cosmos.fts_score(cfg, cosmos.fts_vector(cfg, v),
      ARRAY(SELECT e.x FROM jsonb_array_elements_text(terms) WITH ORDINALITY AS e(x, i) ORDER BY e.i),
      (n #>> '{}')::double precision, (total #>> '{}')::double precision,
      ARRAY(SELECT (e.x #>> '{}')::double precision FROM jsonb_array_elements(hits) WITH ORDINALITY AS e(x, i) ORDER BY e.i)))
  END
$$;
