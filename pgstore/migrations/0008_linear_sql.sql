-- Helpers that keep the translation's SQL linear in the query text
-- (pgstore/sqlgen): each takes every operand once, where the statement used
-- to spell an operand out two or more times (so that nesting the construct
-- doubled the statement at every level). Like every helper they are
-- IMMUTABLE SQL functions: the planner inlines them where the arguments
-- are cheap, and calls them otherwise.

-- eq is Cosmos equality: for two defined values, true when they have the
-- same type and are equal (arrays and objects structurally, numbers by
-- value), false otherwise, across types too (the service's behaviour: `c.x
-- != null` holds for a string x); undefined when either is undefined.
CREATE OR REPLACE FUNCTION cosmos.eq(a jsonb, b jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT to_jsonb(a = b)
$$;

-- between is x BETWEEN lo AND hi: x >= lo AND x <= hi, each undefined
-- across types.
CREATE FUNCTION cosmos.between(x jsonb, lo jsonb, hi jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT cosmos.l_and(to_jsonb(cosmos.cmp(x, lo) >= 0), to_jsonb(cosmos.cmp(x, hi) <= 0))
$$;

-- i32 converts a Cosmos number to a 32-bit integer the way JavaScript
-- bitwise operators do (truncate, keep the low 32 bits); NULL otherwise.
CREATE FUNCTION cosmos.i32(v jsonb) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN cosmos.num(v) IS NOT NULL
    THEN ((trunc(cosmos.num(v))::numeric % 4294967296)::bigint::bit(32)::integer) END
$$;

-- The IEEE results of the operations PostgreSQL refuses: division by
-- zero, the remainder of a division by zero, square roots and logarithms
-- outside their domain give NaN or an infinity (cosmos.f8 makes them
-- undefined; TOSTRING prints them, see num_text).
CREATE FUNCTION cosmos.div8(a double precision, b double precision) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN b <> 0 THEN a / b WHEN a > 0 THEN 'Infinity'::double precision
    WHEN a < 0 THEN '-Infinity'::double precision WHEN a = 0 OR a = 'NaN' THEN 'NaN'::double precision END
$$;

CREATE FUNCTION cosmos.mod8(a double precision, b double precision) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN b <> 0 THEN a - b * trunc(a / b) WHEN b = 0 THEN 'NaN'::double precision END
$$;

CREATE FUNCTION cosmos.sqrt8(d double precision) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN d >= 0 THEN sqrt(d) WHEN d < 0 THEN 'NaN'::double precision END
$$;

CREATE FUNCTION cosmos.ln8(d double precision) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN d > 0 THEN ln(d) WHEN d = 0 THEN '-Infinity'::double precision
    WHEN d < 0 THEN 'NaN'::double precision END
$$;

CREATE FUNCTION cosmos.log10_8(d double precision) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN d > 0 THEN log(d) WHEN d = 0 THEN '-Infinity'::double precision
    WHEN d < 0 THEN 'NaN'::double precision END
$$;

-- round8 rounds halves away from zero (ROUND).
CREATE FUNCTION cosmos.round8(d double precision) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT sign(d) * floor(abs(d) + 0.5)
$$;

-- num_text is TOSTRING of a double: NaN, Infinity and -Infinity by name,
-- any other number as TOSTRING prints it.
CREATE FUNCTION cosmos.num_text(d double precision) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN d = 'NaN'::double precision THEN 'NaN'
    WHEN d = 'Infinity'::double precision THEN 'Infinity'
    WHEN d = '-Infinity'::double precision THEN '-Infinity'
    ELSE cosmos.to_string(cosmos.f8(d), NULL::json) END
$$;

-- array_len is ARRAY_LENGTH: undefined for a non-array.
CREATE FUNCTION cosmos.array_len(a jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(a) = 'array' THEN to_jsonb(jsonb_array_length(a)) END
$$;

-- array_contains is ARRAY_CONTAINS(a, v[, partial]): whether an element
-- of the array a equals v, or, when partial is true and v an object,
-- contains its members; undefined when a is not an array or v undefined.
CREATE FUNCTION cosmos.array_contains(a jsonb, v jsonb, partial jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(a) = 'array' AND v IS NOT NULL THEN to_jsonb(
    CASE WHEN partial = 'true'::jsonb AND jsonb_typeof(v) = 'object'
      THEN EXISTS (SELECT 1 FROM jsonb_array_elements(a) AS e(x) WHERE jsonb_typeof(e.x) = 'object' AND e.x @> v)
      ELSE EXISTS (SELECT 1 FROM jsonb_array_elements(a) AS e(x) WHERE e.x = v) END) END
$$;

-- ends_with is whether s ends with suffix.
CREATE FUNCTION cosmos.ends_with(s text, suffix text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT right(s, char_length(suffix)) = suffix
$$;

-- str_test is CONTAINS (kind 'contains'), STARTSWITH ('starts'),
-- ENDSWITH ('ends') or STRINGEQUALS ('equals') of s and sub, both
-- case-folded (cosmos.fold) when ignore_case is true.
CREATE FUNCTION cosmos.str_test(kind text, s text, sub text, ignore_case jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT to_jsonb(CASE kind WHEN 'contains' THEN strpos(f.s, f.sub) > 0
    WHEN 'starts' THEN starts_with(f.s, f.sub) WHEN 'ends' THEN cosmos.ends_with(f.s, f.sub)
    ELSE f.s = f.sub END)
  FROM (SELECT CASE WHEN ignore_case = 'true'::jsonb THEN cosmos.fold(s) ELSE s END AS s,
               CASE WHEN ignore_case = 'true'::jsonb THEN cosmos.fold(sub) ELSE sub END AS sub) AS f
$$;

-- with_sys is a stored document body with its system properties: _rid
-- (from the container RID coll and the document's seq), _self (prefix
-- self_prefix), _etag, _attachments and _ts.
CREATE FUNCTION cosmos.with_sys(doc jsonb, coll bytea, self_prefix text, seq bigint, etag text, ts bigint) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT doc || jsonb_build_object('_rid', cosmos.doc_rid(coll, seq), '_self', self_prefix || cosmos.doc_rid(coll, seq) || '/',
    '_etag', etag, '_attachments', 'attachments/', '_ts', ts)
$$;

-- l_all and l_any are the AND and the OR of all the elements of vs
-- (three-valued, as l_and and l_or; a non-boolean acts as undefined): a
-- long chain of one operator is one call, not a deep nest of l_and/l_or.
CREATE FUNCTION cosmos.l_all(vs jsonb[]) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN 'false'::jsonb = ANY(vs) THEN 'false'::jsonb
              WHEN 'true'::jsonb = ALL(vs) THEN 'true'::jsonb END
$$;

CREATE FUNCTION cosmos.l_any(vs jsonb[]) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN 'true'::jsonb = ANY(vs) THEN 'true'::jsonb
              WHEN 'false'::jsonb = ALL(vs) THEN 'false'::jsonb END
$$;
