-- Arithmetic that never raises, and exact JavaScript integer conversion
-- for the bitwise operators (pgstore/sqlgen: expr.go, functions.go).
--
-- PostgreSQL's double precision operators and functions raise where IEEE
-- arithmetic gives an infinity, NaN or zero: 1e308 * 10 and exp(1000)
-- (overflow), 1e-300 * 1e-300 and exp(-1000) (underflow), acos(2) (out of
-- range), 0 ^ -1 and (-8) ^ 0.5. A Cosmos query gets the IEEE value instead
-- (cosmos.f8 then makes a non-finite result undefined, and TOSTRING prints
-- it by name). Each helper is a plain SQL expression, inlined by the
-- planner: operands within bounds where the double operation cannot leave
-- the normal range take that operation (nearly every value); only the
-- others take the exact numeric path (cosmos.fx, cosmos.nf8), which never
-- raises either. No exception block runs per value. As everywhere, NULL
-- (undefined) in any operand gives NULL.

-- fx is a double as a numeric, exactly: d = m * 2^-k with m an integer
-- below 2^56 (k from an estimate of d's binary exponent, good to one; the
-- two scalings by powers of two are exact), then m * 5^k * 10^-k. A cast
-- (d::numeric) would keep 15 digits, and even the shortest decimal that
-- reads back as d is not d: 1.7976931348623157e308 + 1e292 must overflow,
-- 5e-324 / 2 must be 0. NaN and the infinities become numeric NaN and
-- infinities (PostgreSQL's NaN equals itself: tested by name). Only the
-- exact paths below call it (values near the ends of
-- the double range), so its cost is not per row.
CREATE FUNCTION cosmos.fx(d double precision) RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN NOT e.finite THEN d::text::numeric
    WHEN e.k <= 0 THEN e.m * 2::numeric ^ (-e.k)
    ELSE ((e.m * 5::numeric ^ e.k)::text || 'e-' || e.k)::numeric END
  FROM (SELECT f.finite, f.k, CASE WHEN f.finite
          THEN (d * 2::double precision ^ (f.k / 2) * 2::double precision ^ (f.k - f.k / 2))::bigint::numeric END AS m
        FROM (SELECT g.finite, CASE WHEN g.finite THEN 53 - floor(ln(abs(d)) / ln(2))::integer END AS k
              FROM (SELECT d <> 0 AND d <> 'NaN'::double precision AND abs(d) <> 'Infinity'::double precision AS finite) AS g) AS f) AS e
$$;

-- nf8 is a numeric rounded to the nearest double as IEEE arithmetic rounds
-- it: an infinity from 2^1024 - 2^970 up (the first value that rounds
-- past the largest double), zero at or below 2^-1075 (half the smallest
-- subnormal; negative zero for a negative numeric), NaN for NaN. The
-- bounds are exact, so the cast in the last branch never raises.
CREATE FUNCTION cosmos.nf8(n numeric) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN n = 'NaN'::numeric THEN 'NaN'::double precision
    WHEN n >= 179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497792 THEN 'Infinity'::double precision
    WHEN n <= -179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497792 THEN '-Infinity'::double precision
    WHEN abs(n) * 404804506614621236704990693437834614099113299528284236713802716054860679135990693783920767402874248990374155728633623822779617474771586953734026799881477019843034848553132722728933815484186432682479535356945490137124014966849385397236206711298319112681620113024717539104666829230461005064372655017292012526615415482186989568 <= 1 THEN CASE WHEN n < 0 THEN '-0'::double precision ELSE 0::double precision END
    ELSE n::double precision END
$$;

-- add8, sub8, mul8 are a + b, a - b, a * b with IEEE results. Within
-- the bounds of the first branch the double operation cannot overflow (nor
-- a product underflow to zero).
CREATE FUNCTION cosmos.add8(a double precision, b double precision) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN abs(a) <= 1e307 AND abs(b) <= 1e307 THEN a + b
    WHEN a IS NULL OR b IS NULL THEN NULL
    ELSE cosmos.nf8(cosmos.fx(a) + cosmos.fx(b)) END
$$;

CREATE FUNCTION cosmos.sub8(a double precision, b double precision) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN abs(a) <= 1e307 AND abs(b) <= 1e307 THEN a - b
    WHEN a IS NULL OR b IS NULL THEN NULL
    ELSE cosmos.nf8(cosmos.fx(a) - cosmos.fx(b)) END
$$;

CREATE FUNCTION cosmos.mul8(a double precision, b double precision) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN (abs(a) BETWEEN 1e-150 AND 1e150 OR a = 0) AND (abs(b) BETWEEN 1e-150 AND 1e150 OR b = 0) THEN a * b
    WHEN a IS NULL OR b IS NULL THEN NULL
    ELSE cosmos.nf8(cosmos.fx(a) * cosmos.fx(b)) END
$$;

-- div_exact is the double nearest n / b for n the dividend scaled by
-- 10^1100 (see div8).
CREATE FUNCTION cosmos.div_exact(n numeric, b numeric) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT cosmos.nf8((q.q::text || CASE WHEN q.q * b = n THEN '' ELSE '5' END
    || 'e-' || CASE WHEN q.q * b = n THEN 1100 ELSE 1101 END)::numeric)
  FROM (SELECT div(n, b) AS q) AS q
$$;

-- div8 is a / b with IEEE results: division by zero gives an infinity or
-- NaN (as before), an overflowing or underflowing quotient an infinity or
-- zero. Out of the bounds of the double path, the exact quotient is
-- truncated to 1100 decimal places (every double, and every midpoint
-- between two, has at most 1075), with a 5 appended when a remainder is
-- left, so that the rounding to a double (nf8) goes the same way as from
-- the exact quotient.
CREATE OR REPLACE FUNCTION cosmos.div8(a double precision, b double precision) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN b = 0 THEN
      CASE WHEN a > 0 THEN 'Infinity'::double precision WHEN a < 0 THEN '-Infinity'::double precision
        WHEN a = 0 OR a = 'NaN' THEN 'NaN'::double precision END
    WHEN (abs(a) BETWEEN 1e-150 AND 1e150 OR a = 0) AND abs(b) BETWEEN 1e-150 AND 1e150 THEN a / b
    WHEN a IS NULL OR b IS NULL THEN NULL
    WHEN a = 'NaN'::double precision OR b = 'NaN'::double precision THEN 'NaN'::double precision
    WHEN abs(b) = 'Infinity'::double precision THEN
      CASE WHEN abs(a) = 'Infinity'::double precision THEN 'NaN'::double precision ELSE 0::double precision END
    WHEN abs(a) = 'Infinity'::double precision THEN a * sign(b)
    ELSE cosmos.div_exact(cosmos.fx(a) * (10::numeric ^ 1100), cosmos.fx(b)) END
$$;

-- exp8 is EXP: an infinity above 710, zero below -746, the double
-- result elsewhere; between the bounds where exp cannot leave the normal
-- range and those, the square of exp(d / 2) (which mul8 takes to an
-- infinity or zero when it must; the numeric exp of the decimal d would
-- miss by far more, its rounding error multiplied by d).
CREATE FUNCTION cosmos.exp8(d double precision) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN d BETWEEN -708 AND 709 THEN exp(d)
    WHEN d IS NULL THEN NULL
    WHEN d = 'NaN'::double precision THEN d
    WHEN d > 710 THEN 'Infinity'::double precision WHEN d < -746 THEN 0::double precision
    ELSE cosmos.mul8(exp(d / 2), exp(d / 2)) END
$$;

-- pow8 is POWER (C's pow): 0 to a negative power is an infinity, a
-- negative number to a non-integer power NaN; a result beyond the double
-- range an infinity (negative for a negative base to an odd power) or
-- zero. |b * ln|a|| is the natural logarithm of the result's magnitude,
-- compared through a division (the product itself could overflow). Near
-- the ends of the range the result is the square of |a| ^ (b / 2), as in
-- exp8.
CREATE FUNCTION cosmos.pow8(a double precision, b double precision) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN a IS NULL OR b IS NULL THEN NULL
    WHEN a < 0 AND b <> trunc(b) THEN 'NaN'::double precision
    WHEN a = 0 THEN CASE WHEN b < 0 THEN 'Infinity'::double precision ELSE a ^ b END
    WHEN b = 0 OR abs(a) = 1 OR abs(b) <= 700 / abs(ln(abs(a))) THEN a ^ b
    WHEN a = 'NaN'::double precision OR b = 'NaN'::double precision THEN 'NaN'::double precision
    ELSE CASE WHEN a < 0 AND b - 2 * floor(b / 2) = 1 THEN -1 ELSE 1 END
      * CASE WHEN abs(b) <= CASE WHEN (b > 0) = (abs(a) > 1) THEN 710 ELSE 746 END / abs(ln(abs(a)))
          THEN cosmos.mul8(abs(a) ^ (b / 2), abs(a) ^ (b / 2))
        WHEN (b > 0) = (abs(a) > 1) THEN 'Infinity'::double precision ELSE 0::double precision END END
$$;

-- mod8 is a % b (C's fmod): NaN for a zero divisor; a itself when |a| <
-- |b|; where the quotient a / b could overflow, the remainder of the
-- numerics (which never raises).
CREATE OR REPLACE FUNCTION cosmos.mod8(a double precision, b double precision) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN a IS NULL OR b IS NULL THEN NULL
    WHEN b = 0 THEN 'NaN'::double precision
    WHEN abs(a) < abs(b) THEN a
    WHEN abs(a) <= 1e300 AND abs(b) >= 1e-7 THEN a - b * trunc(a / b)
    ELSE cosmos.nf8(mod(cosmos.fx(a), cosmos.fx(b))) END
$$;

-- acos8 and asin8 are ACOS and ASIN: NaN outside [-1, 1].
CREATE FUNCTION cosmos.acos8(d double precision) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN d BETWEEN -1 AND 1 THEN acos(d) WHEN d IS NOT NULL THEN 'NaN'::double precision END
$$;

CREATE FUNCTION cosmos.asin8(d double precision) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN d BETWEEN -1 AND 1 THEN asin(d) WHEN d IS NOT NULL THEN 'NaN'::double precision END
$$;

-- s32 reads u, an integer in [0, 2^32), as a signed 32-bit integer.
CREATE FUNCTION cosmos.s32(u double precision) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT (CASE WHEN u >= 2147483648 THEN u - 4294967296 ELSE u END)::integer
$$;

-- i32f is ToInt32 of a double (see i32).
CREATE FUNCTION cosmos.i32f(d double precision) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT cosmos.s32(CASE WHEN d = 'NaN'::double precision OR abs(d) = 'Infinity'::double precision THEN 0
    ELSE trunc(d) - 4294967296 * floor(trunc(d) / 4294967296) END)
$$;

-- i32 is ToInt32 of ECMAScript (what JavaScript's bitwise operators apply
-- to their operands): the number truncated, taken modulo 2^32, read as a
-- signed 32-bit integer; NaN and the infinities give 0; NULL for anything
-- but a number. All in double arithmetic, where each step is exact (t /
-- 2^32 and its floor times 2^32 only move the exponent, and their
-- difference with t is an integer below 2^32): numeric would round the
-- double to 15 digits first (1234567890123457 | 0 came out 1015724740, not
-- 1015724737).
CREATE OR REPLACE FUNCTION cosmos.i32(v jsonb) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT cosmos.i32f(cosmos.num(v))
$$;

-- number_bin is NUMBERBIN(n, size): n rounded down to a multiple of size
-- (undefined for a zero size), with the operations above.
CREATE OR REPLACE FUNCTION cosmos.number_bin(n double precision, s double precision) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT cosmos.mul8(floor(cosmos.div8(n, NULLIF(s, 0))), s)
$$;
