-- Helpers of the built-in functions added after 0004 (pgstore/sqlgen:
-- functions_array.go, functions_string.go, functions_vector.go): the
-- numeric array functions (ARRAY_SUM, ARRAY_AVG, ARRAY_MEDIAN, ARRAY_MIN,
-- ARRAY_MAX), the multi-needle substring tests (CONTAINS_ALL/ANY_CS/CI,
-- FULLTEXTCONTAINSALL/ANY) and VECTORDISTANCE. As in 0002-0004: a Cosmos
-- value is a jsonb, SQL NULL stands for undefined, and nothing here raises
-- on any input. PostgreSQL's double precision arithmetic raises on
-- overflow and underflow (1e308 + 1e308, 1e-300 * 1e-300, 5e-324 / 2) and
-- a numeric too large or too small for a double raises when cast to one,
-- so numbers are read as exact numerics (cosmos.numr below), converted
-- with cosmos.num_f8 (never raises), and double arithmetic only runs where
-- exact bounds computed first show that it cannot leave the normal range;
-- elsewhere the exact numeric result is rounded to a double.

-- ---------------------------------------------------------------------
-- Case folding

-- fold is the case folding of the case-insensitive string functions:
-- lower() under ICU's root locale when the server has ICU and the
-- database is UTF-8 (so that non-ASCII letters fold too, whatever the
-- database's collation), else lower() under the database's collation
-- (ASCII only under "C").
DO $do$
BEGIN
  IF getdatabaseencoding() = 'UTF8' AND EXISTS (SELECT 1 FROM pg_collation WHERE collname = 'und-x-icu') THEN
    CREATE FUNCTION cosmos.fold(s text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT lower(s COLLATE "und-x-icu") $$;
  ELSE
    CREATE FUNCTION cosmos.fold(s text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT lower(s) $$;
  END IF;
END
$do$;

-- ---------------------------------------------------------------------
-- Strings

-- contains_all / contains_any: whether s contains every / some string of
-- subs (case-insensitively when ci); NULL when s is NULL or any needle is
-- (a non-string argument makes the result undefined). The empty string is
-- contained in every string.
CREATE FUNCTION cosmos.contains_all(s text, subs text[], ci boolean) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN s IS NOT NULL AND array_position(subs, NULL) IS NULL THEN
    to_jsonb(NOT EXISTS (SELECT 1 FROM unnest(subs) AS n(x)
                         WHERE strpos(CASE WHEN ci THEN cosmos.fold(s) ELSE s END,
                                      CASE WHEN ci THEN cosmos.fold(n.x) ELSE n.x END) = 0)) END
$$;

CREATE FUNCTION cosmos.contains_any(s text, subs text[], ci boolean) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN s IS NOT NULL AND array_position(subs, NULL) IS NULL THEN
    to_jsonb(EXISTS (SELECT 1 FROM unnest(subs) AS n(x)
                     WHERE strpos(CASE WHEN ci THEN cosmos.fold(s) ELSE s END,
                                  CASE WHEN ci THEN cosmos.fold(n.x) ELSE n.x END) > 0)) END
$$;

-- ---------------------------------------------------------------------
-- Numeric arrays

-- numr is a Cosmos number as an exact numeric within the range of a
-- double: NULL for anything else and for magnitudes beyond the largest
-- double, 0 for those below the smallest (what parsing them as doubles
-- gives, infinities aside). Products and sums of such numerics stay far
-- from the limits of the numeric type.
CREATE FUNCTION cosmos.numr(v jsonb) RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN abs(cosmos.numx(v)) > 1.7976931348623157e308 THEN NULL
              WHEN abs(cosmos.numx(v)) < 1e-323 THEN 0 ELSE cosmos.numx(v) END
$$;

-- array_nums is the numbers of an array of numbers as exact numerics, in
-- array order; NULL when a is not an array or has an element that is not
-- a number within the range of a double ('{}' for []).
CREATE FUNCTION cosmos.array_nums(a jsonb) RETURNS numeric[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(a) = 'array'
    AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(cosmos.arr(a)) AS e(v) WHERE cosmos.numr(e.v) IS NULL) THEN
    coalesce((SELECT array_agg(cosmos.numr(e.v) ORDER BY e.o)
              FROM jsonb_array_elements(cosmos.arr(a)) WITH ORDINALITY AS e(v, o)), '{}'::numeric[]) END
$$;

-- f8_sum is the IEEE double sum of xs, added in order as doubles (so
-- [0.1, 0.2] sums to 0.30000000000000004); 0 for an empty array; NULL
-- when it is not finite. When the sum of the magnitudes reaches 1e308 a
-- partial sum could overflow: the exact sum is rounded instead.
CREATE FUNCTION cosmos.f8_sum(xs numeric[]) RETURNS double precision
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  mag numeric;
  s double precision := 0;
  x numeric;
BEGIN
  SELECT sum(abs(u.x)) INTO mag FROM unnest(xs) AS u(x);
  IF mag IS NULL THEN
    RETURN 0;
  END IF;
  IF mag >= 1e308 THEN
    RETURN cosmos.num_f8((SELECT sum(u.x) FROM unnest(xs) AS u(x)));
  END IF;
  FOREACH x IN ARRAY xs LOOP
    s := s + cosmos.num_f8(x);
  END LOOP;
  RETURN s;
END
$$;

-- f8_div is the double a / n for a count n (NULL unless n >= 1), rounded
-- from the exact quotient where the double division would underflow.
CREATE FUNCTION cosmos.f8_div(a double precision, n integer) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN n IS NULL OR n < 1 THEN NULL
              WHEN a = 0 OR abs(a) >= 1e-290 THEN a / n::double precision
              ELSE cosmos.num_f8(a::numeric / n) END
$$;

-- array_sum is ARRAY_SUM(a): the double sum of an array of numbers; 0 for
-- []; undefined for a non-array, an element that is not a number (or not
-- one within the range of a double), or a sum that is not finite.
CREATE FUNCTION cosmos.array_sum(a jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT cosmos.f8(cosmos.f8_sum(cosmos.array_nums(a)))
$$;

-- array_avg is ARRAY_AVG(a): the double sum divided by the count;
-- undefined for [] and wherever ARRAY_SUM is.
CREATE FUNCTION cosmos.array_avg(a jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT cosmos.f8(cosmos.f8_div(cosmos.f8_sum(cosmos.array_nums(a)), cardinality(cosmos.array_nums(a))))
$$;

-- array_median is ARRAY_MEDIAN(a): the middle number in numeric order, or
-- for an even count the mean of the two middle ones, (x + y) / 2 in
-- doubles (the exact mean, rounded, where that would overflow or
-- underflow); undefined for [] and for a non-array or an element that is
-- not a number.
CREATE FUNCTION cosmos.array_median(a jsonb) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  xs numeric[] := (SELECT array_agg(u.x ORDER BY u.x) FROM unnest(cosmos.array_nums(a)) AS u(x));
  n integer := coalesce(cardinality(xs), 0);
  x numeric;
  y numeric;
BEGIN
  IF n = 0 THEN
    RETURN NULL;
  END IF;
  IF n % 2 = 1 THEN
    RETURN cosmos.f8(cosmos.num_f8(xs[(n + 1) / 2]));
  END IF;
  x := xs[n / 2];
  y := xs[n / 2 + 1];
  IF abs(x) < 1e300 AND abs(y) < 1e300 AND (x + y = 0 OR abs(x + y) >= 1e-290) THEN
    RETURN cosmos.f8((cosmos.num_f8(x) + cosmos.num_f8(y)) / 2);
  END IF;
  RETURN cosmos.f8(cosmos.num_f8((x + y) / 2));
END
$$;

-- array_min / array_max are ARRAY_MIN(a) / ARRAY_MAX(a) with the rules of
-- the MIN and MAX aggregates: the types order null < false < true <
-- numbers < strings (strings by code point); undefined for a non-array,
-- for [] and when an element is an array or an object. A number comes
-- back as a double.
CREATE FUNCTION cosmos.array_min(a jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(a) = 'array' AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(cosmos.arr(a)) AS e(v)
                                                             WHERE jsonb_typeof(e.v) IN ('array', 'object')) THEN
    (SELECT CASE WHEN jsonb_typeof(e.v) = 'number' THEN cosmos.f8(cosmos.num_f8(cosmos.numx(e.v))) ELSE e.v END
     FROM jsonb_array_elements(cosmos.arr(a)) AS e(v)
     ORDER BY cosmos.type_rank(e.v), cosmos.numx(e.v), cosmos.str(e.v) COLLATE "C", e.v LIMIT 1) END
$$;

CREATE FUNCTION cosmos.array_max(a jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(a) = 'array' AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(cosmos.arr(a)) AS e(v)
                                                             WHERE jsonb_typeof(e.v) IN ('array', 'object')) THEN
    (SELECT CASE WHEN jsonb_typeof(e.v) = 'number' THEN cosmos.f8(cosmos.num_f8(cosmos.numx(e.v))) ELSE e.v END
     FROM jsonb_array_elements(cosmos.arr(a)) AS e(v)
     ORDER BY cosmos.type_rank(e.v) DESC, cosmos.numx(e.v) DESC, cosmos.str(e.v) COLLATE "C" DESC, e.v DESC LIMIT 1) END
$$;

-- ---------------------------------------------------------------------
-- Vectors

-- nsqrt and ndiv are the square root of x >= 0 and x / y (NULL for
-- y = 0) with at least 30 significant digits: PostgreSQL gives the
-- results the scale of their first argument when that is more than 16
-- significant digits, so x is padded with zero decimals first (never
-- rounded, but for scales beyond numeric's limit of 2000).
CREATE FUNCTION cosmos.nsqrt(x numeric) RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN x > 0 THEN sqrt(round(x, least(greatest(scale(x), 30 - floor(log(x) / 2)), 2000)::integer))
              WHEN x = 0 THEN 0 END
$$;

CREATE FUNCTION cosmos.ndiv(x numeric, y numeric) RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN y = 0 THEN NULL WHEN x = 0 THEN 0
    ELSE round(x, least(greatest(scale(x), 30 - floor(log(abs(x)) - log(abs(y)))), 2000)::integer) / y END
$$;

-- vec_f8 is a vector element as a double when it is 0 or a number whose
-- magnitude is between 1e-150 and 1e150 (products of such numbers stay
-- within the normal range of doubles); NULL otherwise. (jsonb compares a
-- number with numbers of other types by type, never raising, and that is
-- cheaper than numeric arithmetic.)
CREATE FUNCTION cosmos.vec_f8(v jsonb) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN v = '0'::jsonb OR v BETWEEN '1e-150'::jsonb AND '1e150'::jsonb
                OR v BETWEEN '-1e150'::jsonb AND '-1e-150'::jsonb THEN v::double precision END
$$;

-- vector_distance is VECTORDISTANCE(a, b, bruteForce, options): a and b
-- arrays of numbers of the same length (else NULL); bruteForce is
-- ignored (every search here is exhaustive); options NULL or an object
-- whose distanceFunction, a string in any case, picks 'cosine' (the
-- default: the cosine similarity, NULL when a vector has a zero norm),
-- 'dotproduct' or 'euclidean' (the Euclidean distance); other options
-- (dataType...) are ignored, and options of another type or an unknown
-- distance function are NULL, as are vectors with an element that is not
-- a number within the range of a double. The result is a double (NULL
-- when it is not finite).
--
-- When every element is one vec_f8 takes, the sums are computed in
-- doubles, in order: every product is then 0 or between 1e-300 and 1e300
-- in magnitude, so nothing overflows or underflows (a difference below
-- 1e-150 is not squared, and the quotient of the cosine is only taken
-- when it is above 1e-300). Otherwise, and in those two cases, the sums
-- are exact numerics, and the square roots and the quotient keep 30
-- significant digits before the result is rounded to a double.
CREATE FUNCTION cosmos.vector_distance(a jsonb, b jsonb, brute jsonb, opts jsonb) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  f text := 'cosine';
  bad bigint;
  dot double precision;
  aa double precision;
  bb double precision;
  dd double precision;
  near boolean;
  ndot numeric;
  naa numeric;
  nbb numeric;
  ndd numeric;
BEGIN
  IF jsonb_typeof(a) IS DISTINCT FROM 'array' OR jsonb_typeof(b) IS DISTINCT FROM 'array'
     OR jsonb_array_length(a) <> jsonb_array_length(b) THEN
    RETURN NULL;
  END IF;
  IF opts IS NOT NULL THEN
    IF jsonb_typeof(opts) <> 'object' THEN
      RETURN NULL;
    END IF;
    IF opts ? 'distanceFunction' THEN
      f := lower(cosmos.str(opts -> 'distanceFunction'));
      IF f IS NULL OR f NOT IN ('cosine', 'dotproduct', 'euclidean') THEN
        RETURN NULL;
      END IF;
    END IF;
  END IF;
  -- (ROWS FROM walks both arrays in step; OFFSET 0 keeps the subquery, so
  -- that each element is converted once; the sums skip the NULLs of
  -- vec_f8, counted in bad)
  SELECT count(*) FILTER (WHERE u.x IS NULL OR u.y IS NULL),
         coalesce(sum(u.x * u.y), 0), coalesce(sum(u.x * u.x), 0), coalesce(sum(u.y * u.y), 0),
         coalesce(sum(CASE WHEN abs(u.x - u.y) >= 1e-150 THEN (u.x - u.y) * (u.x - u.y) ELSE 0 END), 0),
         coalesce(bool_or(u.x <> u.y AND abs(u.x - u.y) < 1e-150), false)
    INTO bad, dot, aa, bb, dd, near
    FROM (SELECT cosmos.vec_f8(z.x) AS x, cosmos.vec_f8(z.y) AS y
          FROM ROWS FROM (jsonb_array_elements(a), jsonb_array_elements(b)) AS z(x, y) OFFSET 0) AS u;
  IF bad = 0 THEN
    IF f = 'dotproduct' THEN
      RETURN cosmos.f8(dot);
    ELSIF f = 'euclidean' AND NOT near THEN
      RETURN cosmos.f8(sqrt(dd));
    ELSIF f = 'cosine' THEN
      IF aa = 0 OR bb = 0 THEN
        RETURN NULL;
      ELSIF dot = 0 THEN
        RETURN cosmos.f8(0);
      ELSIF ln(abs(dot)) - ln(sqrt(aa) * sqrt(bb)) > -690 THEN
        RETURN cosmos.f8(dot / (sqrt(aa) * sqrt(bb)));
      END IF;
    END IF;
  END IF;
  -- (numr keeps the products within the numeric range)
  SELECT count(*) FILTER (WHERE cosmos.numr(z.x) IS NULL OR cosmos.numr(z.y) IS NULL),
         coalesce(sum(cosmos.numr(z.x) * cosmos.numr(z.y)), 0),
         coalesce(sum(cosmos.numr(z.x) * cosmos.numr(z.x)), 0),
         coalesce(sum(cosmos.numr(z.y) * cosmos.numr(z.y)), 0),
         coalesce(sum((cosmos.numr(z.x) - cosmos.numr(z.y)) * (cosmos.numr(z.x) - cosmos.numr(z.y))), 0)
    INTO bad, ndot, naa, nbb, ndd
    FROM ROWS FROM (jsonb_array_elements(a), jsonb_array_elements(b)) AS z(x, y);
  IF bad > 0 THEN
    RETURN NULL;
  END IF;
  RETURN cosmos.f8(cosmos.num_f8(CASE f
    WHEN 'dotproduct' THEN ndot
    WHEN 'euclidean' THEN cosmos.nsqrt(ndd)
    ELSE cosmos.ndiv(ndot, cosmos.nsqrt(naa) * cosmos.nsqrt(nbb)) END));
END
$$;
