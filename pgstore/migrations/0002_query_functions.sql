-- Helper functions of the Cosmos SQL translation (pgstore/sqlgen). A Cosmos
-- value is a jsonb; SQL NULL stands for undefined. Every function is
-- IMMUTABLE and written in SQL so the planner can inline it.

-- type_rank orders types as Cosmos DB sorts them:
-- undefined < null < boolean < number < string < array < object.
CREATE FUNCTION cosmos.type_rank(v jsonb) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE jsonb_typeof(v) WHEN 'null' THEN 1 WHEN 'boolean' THEN 2 WHEN 'number' THEN 3
    WHEN 'string' THEN 4 WHEN 'array' THEN 5 WHEN 'object' THEN 6 ELSE 0 END
$$;

-- eq is Cosmos equality: a boolean when both sides have the same type
-- (arrays and objects compare structurally, numbers by value), undefined
-- otherwise.
CREATE FUNCTION cosmos.eq(a jsonb, b jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(a) = jsonb_typeof(b) THEN to_jsonb(a = b) END
$$;

-- cmp compares two primitives of the same type (-1, 0, 1); NULL when the
-- types differ or are not comparable (arrays, objects). Strings compare by
-- code point.
CREATE FUNCTION cosmos.cmp(a jsonb, b jsonb) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN jsonb_typeof(a) IS DISTINCT FROM jsonb_typeof(b) THEN NULL
    WHEN jsonb_typeof(a) = 'number' THEN
      CASE WHEN a::numeric < b::numeric THEN -1 WHEN a::numeric > b::numeric THEN 1 ELSE 0 END
    WHEN jsonb_typeof(a) = 'string' THEN
      CASE WHEN (a #>> '{}') COLLATE "C" < (b #>> '{}') COLLATE "C" THEN -1
           WHEN (a #>> '{}') = (b #>> '{}') THEN 0 ELSE 1 END
    WHEN jsonb_typeof(a) = 'boolean' THEN
      CASE WHEN a::boolean = b::boolean THEN 0 WHEN a::boolean THEN 1 ELSE -1 END
    WHEN jsonb_typeof(a) = 'null' THEN 0
  END
$$;

-- num is the double value of a number, NULL for anything else.
CREATE FUNCTION cosmos.num(v jsonb) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(v) = 'number' THEN v::double precision END
$$;

-- str is the text of a string, NULL for anything else.
CREATE FUNCTION cosmos.str(v jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(v) = 'string' THEN v #>> '{}' END
$$;

-- bool_and, bool_or, bool_not: three-valued logic; a non-boolean operand
-- acts as undefined.
CREATE FUNCTION cosmos.l_and(a jsonb, b jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN a = 'false'::jsonb OR b = 'false'::jsonb THEN 'false'::jsonb
              WHEN a = 'true'::jsonb AND b = 'true'::jsonb THEN 'true'::jsonb END
$$;

CREATE FUNCTION cosmos.l_or(a jsonb, b jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN a = 'true'::jsonb OR b = 'true'::jsonb THEN 'true'::jsonb
              WHEN a = 'false'::jsonb AND b = 'false'::jsonb THEN 'false'::jsonb END
$$;

CREATE FUNCTION cosmos.l_not(a jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN a = 'true'::jsonb THEN 'false'::jsonb WHEN a = 'false'::jsonb THEN 'true'::jsonb END
$$;

-- idx is x[i]: a string i is a property name, a non-negative integer an
-- array index; anything else is undefined.
CREATE FUNCTION cosmos.idx(x jsonb, i jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN jsonb_typeof(i) = 'string' AND jsonb_typeof(x) = 'object' THEN x -> (i #>> '{}')
    WHEN jsonb_typeof(i) = 'number' AND jsonb_typeof(x) = 'array' AND i::numeric >= 0
         AND i::numeric = trunc(i::numeric) AND i::numeric < 2147483648 THEN x -> (i::numeric::integer)
  END
$$;

-- f8 turns a double into a Cosmos number (undefined for NaN and infinities,
-- which JSON cannot hold).
CREATE FUNCTION cosmos.f8(d double precision) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN d IS NULL OR d = 'NaN'::double precision OR d = 'Infinity'::double precision
                OR d = '-Infinity'::double precision THEN NULL ELSE to_jsonb(d) END
$$;

-- doc_rid is a document's _rid: the container RID bytes followed by the
-- document number little-endian, base64 with '/' as '-'.
CREATE FUNCTION cosmos.doc_rid(coll bytea, seq bigint) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT translate(encode(coll
    || substring(int8send(seq) from 8 for 1) || substring(int8send(seq) from 7 for 1)
    || substring(int8send(seq) from 6 for 1) || substring(int8send(seq) from 5 for 1)
    || substring(int8send(seq) from 4 for 1) || substring(int8send(seq) from 3 for 1)
    || substring(int8send(seq) from 2 for 1) || substring(int8send(seq) from 1 for 1), 'base64'), '/', '-')
$$;

-- obj_put adds key: value to an object under construction unless the value
-- is undefined (object constructors drop undefined members).
CREATE FUNCTION cosmos.obj_put(o jsonb, k text, v jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN v IS NULL THEN o ELSE o || jsonb_build_object(k, v) END
$$;
