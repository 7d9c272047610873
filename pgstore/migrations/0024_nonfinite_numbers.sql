-- NaN and the infinities as numbers inside query expressions
-- (pgstore/sqlgen: expr.go, functions.go). Inside an expression a Cosmos
-- number travels as a double precision value, where NaN and the
-- infinities exist; cosmos.f8 makes them undefined only where a value
-- leaves the expression (a result, an object member, a sort or group
-- key). These helpers give JavaScript's answers for them where
-- PostgreSQL's operators differ: PostgreSQL's NaN equals itself and sorts
-- above every number, JavaScript's equals nothing and compares false with
-- everything. As everywhere, NULL (undefined) in an operand gives NULL.

-- eq8 is a = b between two numbers: NaN equals nothing, not even NaN.
CREATE FUNCTION cosmos.eq8(a double precision, b double precision) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN a IS NOT NULL AND b IS NOT NULL
    THEN to_jsonb(a = b AND a <> 'NaN'::double precision) END
$$;

-- eq8j is a = b between a number a (a double, possibly not finite) and
-- any value b. b is never NaN nor infinite (a jsonb cannot hold them), so
-- a non-finite a equals no defined b; a finite a compares as before
-- (cosmos.eq: false across types).
CREATE FUNCTION cosmos.eq8j(a double precision, b jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN a IS NULL OR b IS NULL THEN NULL
    WHEN a = 'NaN'::double precision OR abs(a) = 'Infinity'::double precision THEN 'false'::jsonb
    ELSE cosmos.eq(to_jsonb(a), b) END
$$;

-- cmp8 is a op b for op one of <, <=, >, >= (written by the translator)
-- between two numbers: false when either is NaN, as in JavaScript.
CREATE FUNCTION cosmos.cmp8(a double precision, b double precision, op text) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN a IS NULL OR b IS NULL THEN NULL
    WHEN a = 'NaN'::double precision OR b = 'NaN'::double precision THEN 'false'::jsonb
    ELSE to_jsonb(CASE op WHEN '<' THEN a < b WHEN '<=' THEN a <= b WHEN '>' THEN a > b ELSE a >= b END) END
$$;

-- between8 is x BETWEEN lo AND hi over numbers (x >= lo AND x <= hi).
CREATE FUNCTION cosmos.between8(x double precision, lo double precision, hi double precision) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT cosmos.l_and(cosmos.cmp8(x, lo, '>='), cosmos.cmp8(x, hi, '<='))
$$;

-- finite8 is IS_FINITE_NUMBER of a double: false for NaN, the
-- infinities and undefined (PostgreSQL's NaN is above Infinity).
CREATE FUNCTION cosmos.finite8(d double precision) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT to_jsonb(coalesce(abs(d) < 'Infinity'::double precision, false))
$$;

-- nan_inf is d with the infinities replaced by NaN: the argument of the
-- trigonometric functions, which PostgreSQL refuses for an infinity and
-- JavaScript answers with NaN.
CREATE FUNCTION cosmos.nan_inf(d double precision) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN abs(d) = 'Infinity'::double precision THEN 'NaN'::double precision ELSE d END
$$;

-- sign8 is SIGN: NaN for NaN (PostgreSQL's sign gives 0).
CREATE FUNCTION cosmos.sign8(d double precision) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN d = 'NaN'::double precision THEN d ELSE sign(d) END
$$;

-- mod8 (migration 0022), now also NaN for a NaN operand: PostgreSQL's NaN
-- is above every number, so abs(a) < abs(NaN) returned a.
CREATE OR REPLACE FUNCTION cosmos.mod8(a double precision, b double precision) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN a IS NULL OR b IS NULL THEN NULL
    WHEN b = 0 OR a = 'NaN'::double precision OR b = 'NaN'::double precision THEN 'NaN'::double precision
    WHEN abs(a) < abs(b) THEN a
    WHEN abs(a) <= 1e300 AND abs(b) >= 1e-7 THEN a - b * trunc(a / b)
    ELSE cosmos.nf8(mod(cosmos.fx(a), cosmos.fx(b))) END
$$;
