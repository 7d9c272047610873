-- Unique keys (pgstore/uniquekeys.go). Each unique key of a container's
-- uniqueKeyPolicy becomes a UNIQUE index on its items table over
-- (cosmos.unique_pk(pk), cosmos.unique_value(<the value at each path>)...),
-- so that PostgreSQL holds the constraint under concurrency.
--
-- A btree entry must fit in a third of a page (2,704 bytes) and a unique
-- key has up to 16 paths: the index cannot hold every value as it is, and
-- unlike a path index it cannot be dropped when a value is too long
-- (oversize.go), since it decides writes. So short scalars are indexed as
-- they are (jsonb equality: 1 and 1.0 are one value, as in Cosmos) and
-- anything longer, and every object or array, by the MD5 of its canonical
-- jsonb text (keys sorted, strings re-escaped), in a field of its own so
-- that a digest never equals a value. What this gives up: two objects or
-- arrays, or two long numbers, that differ only in how a number is spelt
-- (1 and 1.0) count as different values.

-- unique_value is one path's part of a unique index entry: exactly one of
-- v (the value, JSON null for a missing one: the service treats a missing
-- value as null) and h (the digest) is set.
CREATE TYPE cosmos.unique_value AS (v jsonb, h text);

CREATE FUNCTION cosmos.unique_value(v jsonb) RETURNS cosmos.unique_value
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN v IS NULL THEN ROW('null'::jsonb, NULL)::cosmos.unique_value
    WHEN jsonb_typeof(v) NOT IN ('object', 'array') AND octet_length(v::text) <= 64 THEN ROW(v, NULL)::cosmos.unique_value
    ELSE ROW(NULL, md5(v::text))::cosmos.unique_value END
$$;

-- unique_pk is the partition key's part: the canonical key itself, or the
-- MD5 of a long one (a canonical key starts with '[', a digest never does).
CREATE FUNCTION cosmos.unique_pk(pk text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN octet_length(pk) <= 256 THEN pk ELSE md5(pk) END
$$;
