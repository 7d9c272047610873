-- The string builders of queries that can multiply sizes (REPLACE, CONCAT,
-- ||) refuse a result larger than the response size limit (4 MB,
-- emulator.MaxResponseBytes) before building it: REPLACE of 10,000
-- characters by 10,000 others otherwise builds 100 MB in the backend and
-- ships it. value_too_large raises SQLSTATE Z9413, which pgstore answers
-- with a 413 (substatus 3402, ResponseSizeExceeded). It is VOLATILE so that
-- the planner never folds a call with constant arguments in a CASE arm not
-- taken; the builders are then not inlined, and evaluate each argument
-- once.
CREATE FUNCTION cosmos.value_too_large(n numeric) RETURNS text
LANGUAGE plpgsql VOLATILE PARALLEL SAFE AS $$
BEGIN
  RAISE EXCEPTION USING ERRCODE = 'Z9413', MESSAGE = format('a computed string of %s bytes exceeds the response size limit', n);
END
$$;

-- replace_bounded is replace(s, a, b), refused past 4 MB: the result's
-- length is known from the number of occurrences of a, counted by
-- removing them (which never grows s).
CREATE FUNCTION cosmos.replace_bounded(s text, a text, b text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN s IS NULL OR a IS NULL OR b IS NULL OR octet_length(b) <= octet_length(a) THEN replace(s, a, b)
    WHEN octet_length(s)::numeric + (octet_length(s) - octet_length(replace(s, a, ''))) / octet_length(a)
         * (octet_length(b) - octet_length(a))::numeric <= 4194304 THEN replace(s, a, b)
    ELSE cosmos.value_too_large(octet_length(s)::numeric + (octet_length(s) - octet_length(replace(s, a, ''))) / octet_length(a)
         * (octet_length(b) - octet_length(a))::numeric)
  END
$$;

-- concat_bounded is the concatenation of xs (NULL when one is NULL, as
-- ||), refused past 4 MB.
CREATE FUNCTION cosmos.concat_bounded(VARIADIC xs text[]) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN array_position(xs, NULL) IS NOT NULL THEN NULL
    WHEN (SELECT sum(octet_length(x)) FROM unnest(xs) AS x) <= 4194304 THEN array_to_string(xs, '')
    ELSE cosmos.value_too_large((SELECT sum(octet_length(x)) FROM unnest(xs) AS x))
  END
$$;
