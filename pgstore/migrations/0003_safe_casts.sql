-- Conversions that never raise: PostgreSQL may fold a cast of a constant
-- at planning time even inside a CASE branch that would not run (e.g. the
-- number branch of cmp with a string literal), so every cast of a Cosmos
-- value is guarded by a type test on that very value.
CREATE FUNCTION cosmos.numx(v jsonb) RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(v) = 'number' THEN v::numeric END
$$;

CREATE FUNCTION cosmos.boolv(v jsonb) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(v) = 'boolean' THEN v::boolean END
$$;

CREATE OR REPLACE FUNCTION cosmos.cmp(a jsonb, b jsonb) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN jsonb_typeof(a) IS DISTINCT FROM jsonb_typeof(b) THEN NULL
    WHEN jsonb_typeof(a) = 'number' THEN
      CASE WHEN cosmos.numx(a) < cosmos.numx(b) THEN -1 WHEN cosmos.numx(a) > cosmos.numx(b) THEN 1 ELSE 0 END
    WHEN jsonb_typeof(a) = 'string' THEN
      CASE WHEN cosmos.str(a) COLLATE "C" < cosmos.str(b) COLLATE "C" THEN -1
           WHEN cosmos.str(a) = cosmos.str(b) THEN 0 ELSE 1 END
    WHEN jsonb_typeof(a) = 'boolean' THEN
      CASE WHEN cosmos.boolv(a) = cosmos.boolv(b) THEN 0 WHEN cosmos.boolv(a) THEN 1 ELSE -1 END
    WHEN jsonb_typeof(a) = 'null' THEN 0
  END
$$;

CREATE OR REPLACE FUNCTION cosmos.num(v jsonb) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT cosmos.numx(v)::double precision
$$;

CREATE OR REPLACE FUNCTION cosmos.idx(x jsonb, i jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN jsonb_typeof(i) = 'string' AND jsonb_typeof(x) = 'object' THEN x -> (i #>> '{}')
    WHEN jsonb_typeof(x) = 'array' AND cosmos.numx(i) >= 0 AND cosmos.numx(i) = trunc(cosmos.numx(i))
         AND cosmos.numx(i) < 2147483648 THEN x -> (cosmos.numx(i)::integer)
  END
$$;
