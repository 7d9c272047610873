-- Helpers of the built-in functions of the Cosmos SQL translation
-- (pgstore/sqlgen/functions.go). As in 0002/0003: a Cosmos value is a
-- jsonb, SQL NULL stands for undefined, and nothing here raises on a value
-- of the wrong type or range: every cast is guarded by a test on the very
-- value it converts (or by clamping it first), because the planner may
-- fold a cast of a constant even inside a CASE branch that would not run.
-- The helpers are IMMUTABLE functions, in SQL the planner can inline where
-- that is cheap; in PL/pgSQL where an argument would otherwise be copied
-- many times over (the date/time functions) or an exception block is
-- needed (parse_json).

-- ---------------------------------------------------------------------
-- Numbers

-- num_f8 is a numeric as a double without raising: NULL beyond the double
-- range, 0 below the smallest subnormal.
CREATE FUNCTION cosmos.num_f8(n numeric) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN abs(n) > 1.7976931348623157e308 THEN NULL
              WHEN abs(n) < 1e-323 THEN 0::double precision
              ELSE n::double precision END
$$;

-- fdiv and fmod are floor division and its remainder (exact; the sign of
-- fmod follows the divisor).
CREATE FUNCTION cosmos.fdiv(a numeric, b numeric) RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT div(a, b) - CASE WHEN mod(a, b) <> 0 AND (mod(a, b) < 0) <> (b < 0) THEN 1 ELSE 0 END
$$;

CREATE FUNCTION cosmos.fmod(a numeric, b numeric) RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT a - cosmos.fdiv(a, b) * b
$$;

-- i64 is a Cosmos number that is an integer in the signed 64-bit range, as
-- a numeric; NULL otherwise. Numbers are doubles: ±2^63 (what the literals
-- 9223372036854775807 and -9223372036854775808 become) count as in range
-- and are clamped to the int64 bounds.
CREATE FUNCTION cosmos.i64(v jsonb) RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN cosmos.numx(v) = trunc(cosmos.numx(v)) AND abs(cosmos.numx(v)) <= 9223372036854776832
    THEN least(greatest(cosmos.numx(v), -9223372036854775808), 9223372036854775807) END
$$;

-- wrap64 keeps the low 64 bits of an integer, as two's complement
-- arithmetic on int64 does (overflow wraps around).
CREATE FUNCTION cosmos.wrap64(x numeric) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT (mod(mod(x + 9223372036854775808, 18446744073709551616) + 18446744073709551616, 18446744073709551616)
          - 9223372036854775808)::bigint
$$;

-- log_base is LOG(n, base); NULL where it is not a finite real.
CREATE FUNCTION cosmos.log_base(n double precision, b double precision) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN n > 0 AND b > 0 AND b <> 1 THEN ln(n) / ln(b) END
$$;

-- number_bin is NUMBERBIN(n, size): n rounded down to a multiple of size.
CREATE FUNCTION cosmos.number_bin(n double precision, s double precision) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT floor(n / NULLIF(s, 0)) * s
$$;

-- js_num prints a double as JavaScript does (Number.prototype.toString):
-- the shortest digits that round-trip, fixed notation from 1e-6 up to
-- 1e21, exponential (1e+21, 1.5e-7) outside.
CREATE FUNCTION cosmos.js_num(d double precision) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN d = 0 THEN '0'
              WHEN abs(d) >= 1e-6 AND abs(d) < 1e21 THEN ((d::text)::numeric)::text
              ELSE regexp_replace(d::text, 'e([+-])0*', 'e\1') END
$$;

-- ---------------------------------------------------------------------
-- Strings

CREATE FUNCTION cosmos.index_of_from(s text, sub text, start integer) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN start > char_length(s) THEN -1
              WHEN strpos(substr(s, start + 1), sub) = 0 THEN -1
              ELSE strpos(substr(s, start + 1), sub) - 1 + start END
$$;

-- index_of is INDEX_OF(s, sub, start) (0-based; -1 when absent); start is
-- clamped before it is cast (see above), a negative start is undefined.
CREATE FUNCTION cosmos.index_of(s text, sub text, start numeric) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN start = trunc(start) AND start >= 0 THEN
    cosmos.index_of_from(s, sub, least(start, 1073741824)::integer) END
$$;

-- last_index_of is LASTINDEXOF(s, sub) (0-based; -1 when absent).
CREATE FUNCTION cosmos.last_index_of(s text, sub text) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN strpos(s, sub) = 0 THEN -1
              ELSE char_length(s) - char_length(sub) - strpos(reverse(s), reverse(sub)) + 1 END
$$;

-- replicate is REPLICATE(s, n): undefined for a negative or fractional n
-- and for results longer than 10,000 characters.
CREATE FUNCTION cosmos.replicate(s text, n numeric) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN n >= 0 AND n = trunc(n) AND char_length(s) * n <= 10000
    THEN repeat(s, least(n, 10000)::integer) END
$$;

-- string_split is STRINGSPLIT(s, delimiter): the pieces between the
-- delimiters, empty ones included ("" gives [""]; an empty delimiter does
-- not split).
CREATE FUNCTION cosmos.string_split(s text, d text) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN d IS NULL THEN NULL WHEN s = '' THEN '[""]'::jsonb ELSE to_jsonb(string_to_array(s, d)) END
$$;

-- arr is its argument when it is an array, NULL otherwise (so that
-- jsonb_array_elements never sees a scalar).
CREATE FUNCTION cosmos.arr(a jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(a) = 'array' THEN a END
$$;

-- string_join is STRINGJOIN(array, separator): undefined unless every
-- element is a string.
CREATE FUNCTION cosmos.string_join(a jsonb, sep text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(a) = 'array' AND sep IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(cosmos.arr(a)) AS e(v) WHERE jsonb_typeof(e.v) <> 'string')
    THEN coalesce((SELECT string_agg(e.v #>> '{}', sep ORDER BY e.o)
                   FROM jsonb_array_elements(cosmos.arr(a)) WITH ORDINALITY AS e(v, o)), '') END
$$;

-- re_opts turns REGEXMATCH flags (i, m, s, x, PCRE meanings) into the
-- embedded options of a PostgreSQL ARE; NULL for other letters. Without s,
-- '.' does not match a newline; with m, ^ and $ match at line breaks.
CREATE FUNCTION cosmos.re_opts(f text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN f ~ '^[imsx]*$' THEN
    CASE WHEN strpos(f, 'i') > 0 THEN 'i' ELSE '' END
    || CASE WHEN strpos(f, 'x') > 0 THEN 'x' ELSE '' END
    || CASE WHEN strpos(f, 'm') > 0 AND strpos(f, 's') > 0 THEN 'w'
            WHEN strpos(f, 'm') > 0 THEN 'n'
            WHEN strpos(f, 's') > 0 THEN 's'
            ELSE 'p' END END
$$;

-- parse_json parses s as strict JSON and returns it when its type is ty
-- ('number', 'boolean', 'null', 'array', 'object'); NULL when s is not
-- JSON or has another type. It cannot be inlined (the exception block
-- opens a subtransaction, which also makes it parallel unsafe), so a cheap
-- test of the first character rules out most mismatches first.
CREATE FUNCTION cosmos.parse_json(s text, ty text) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL UNSAFE AS $$
DECLARE
  t text := btrim(s, E' \t\n\r');
  c text := left(t, 1);
  plausible boolean := CASE ty
      WHEN 'number' THEN c ~ '^[-0-9]$'
      WHEN 'boolean' THEN t IN ('true', 'false')
      WHEN 'null' THEN t = 'null'
      WHEN 'array' THEN c = '['
      WHEN 'object' THEN c = '{'
      ELSE false END;
  v jsonb;
BEGIN
  IF NOT plausible THEN
    RETURN NULL;
  END IF;
  BEGIN
    v := t::jsonb;
  EXCEPTION WHEN data_exception OR program_limit_exceeded THEN
    RETURN NULL;
  END;
  IF jsonb_typeof(v) = ty THEN
    RETURN v;
  END IF;
  RETURN NULL;
END
$$;

-- ---------------------------------------------------------------------
-- Arrays and objects

-- array_cat is ARRAY_CONCAT of two values: undefined unless both are arrays.
CREATE FUNCTION cosmos.array_cat(a jsonb, b jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(a) = 'array' AND jsonb_typeof(b) = 'array' THEN a || b END
$$;

-- array_slice is ARRAY_SLICE(a, start, len): a negative start counts from
-- the end; the slice is clamped to the array; a negative len gives [].
CREATE FUNCTION cosmos.array_slice(a jsonb, s numeric, l numeric) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(a) = 'array' AND s = trunc(s) AND l = trunc(l) THEN
    coalesce((SELECT jsonb_agg(e.v ORDER BY e.o)
              FROM jsonb_array_elements(cosmos.arr(a)) WITH ORDINALITY AS e(v, o)
              WHERE e.o - 1 >= CASE WHEN s < 0 THEN greatest(jsonb_array_length(cosmos.arr(a)) + s, 0) ELSE s END
                AND e.o - 1 < CASE WHEN s < 0 THEN greatest(jsonb_array_length(cosmos.arr(a)) + s, 0) ELSE s END + greatest(l, 0)),
             '[]'::jsonb) END
$$;

-- array_contains_any / _all: ARRAY_CONTAINS_ANY/ALL(a, v1, ...) with the
-- needles as a SQL array (NULL elements are undefined arguments, which
-- make the result undefined).
CREATE FUNCTION cosmos.array_contains_any(a jsonb, vs jsonb[]) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(a) = 'array' AND array_position(vs, NULL) IS NULL THEN
    to_jsonb(EXISTS (SELECT 1 FROM jsonb_array_elements(cosmos.arr(a)) AS e(v) WHERE e.v = ANY (vs))) END
$$;

CREATE FUNCTION cosmos.array_contains_all(a jsonb, vs jsonb[]) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(a) = 'array' AND array_position(vs, NULL) IS NULL THEN
    to_jsonb(NOT EXISTS (SELECT 1 FROM unnest(vs) AS n(x)
                         WHERE NOT EXISTS (SELECT 1 FROM jsonb_array_elements(cosmos.arr(a)) AS e(v) WHERE e.v = n.x))) END
$$;

-- set_intersect is SETINTERSECT(a, b): the distinct elements of b that are
-- in a, in b's order.
CREATE FUNCTION cosmos.set_intersect(a jsonb, b jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(a) = 'array' AND jsonb_typeof(b) = 'array' THEN
    coalesce((SELECT jsonb_agg(d.v ORDER BY d.o) FROM (
      SELECT DISTINCT ON (e.v) e.v, e.o FROM jsonb_array_elements(cosmos.arr(b)) WITH ORDINALITY AS e(v, o)
      WHERE EXISTS (SELECT 1 FROM jsonb_array_elements(cosmos.arr(a)) AS x(v) WHERE x.v = e.v)
      ORDER BY e.v, e.o) AS d), '[]'::jsonb) END
$$;

-- set_union is SETUNION(a, b): the distinct elements of a in order, then
-- those of b not seen yet.
CREATE FUNCTION cosmos.set_union(a jsonb, b jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(a) = 'array' AND jsonb_typeof(b) = 'array' THEN
    coalesce((SELECT jsonb_agg(d.v ORDER BY d.src, d.o) FROM (
      SELECT DISTINCT ON (u.v) u.v, u.src, u.o FROM (
        SELECT e.v, 1 AS src, e.o FROM jsonb_array_elements(cosmos.arr(a)) WITH ORDINALITY AS e(v, o)
        UNION ALL
        SELECT e.v, 2, e.o FROM jsonb_array_elements(cosmos.arr(b)) WITH ORDINALITY AS e(v, o)) AS u
      ORDER BY u.v, u.src, u.o) AS d), '[]'::jsonb) END
$$;

-- json_key_pos gives the first position of each key of a json object (the
-- document text keeps the stored member order, which jsonb loses); no rows
-- for NULL or a non-object.
CREATE FUNCTION cosmos.json_key_pos(o json) RETURNS TABLE (k text, pos bigint)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT x.k, min(x.pos) FROM json_object_keys(CASE WHEN json_typeof(o) = 'object' THEN o END) WITH ORDINALITY AS x(k, pos)
  GROUP BY x.k
$$;

-- obj_to_array is OBJECTTOARRAY(o, keyName, valueName); ord is the same
-- object as json text when known (members then keep their stored order),
-- else NULL.
CREATE FUNCTION cosmos.obj_to_array(o jsonb, kn text, vn text, ord json) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(o) = 'object' AND kn IS NOT NULL AND vn IS NOT NULL THEN
    coalesce((SELECT jsonb_agg(jsonb_build_object(kn, e.k, vn, e.v) ORDER BY p.pos NULLS LAST, e.o)
              FROM jsonb_each(CASE WHEN jsonb_typeof(o) = 'object' THEN o END) WITH ORDINALITY AS e(k, v, o)
              LEFT JOIN cosmos.json_key_pos(ord) AS p ON p.k = e.k), '[]'::jsonb) END
$$;

-- json_text serialises a value as compact JSON with JavaScript number
-- formatting (JSON.stringify); ord as in obj_to_array. Scalar members are
-- written in place, only arrays and objects recurse (PL/pgSQL: recursive
-- SQL functions cannot be inlined, and run slower).
CREATE FUNCTION cosmos.json_scalar(v jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(v) = 'number' THEN cosmos.js_num(cosmos.num_f8(cosmos.numx(v))) ELSE v::text END
$$;

CREATE FUNCTION cosmos.json_text(v jsonb, ord json) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  r text;
BEGIN
  CASE jsonb_typeof(v)
  WHEN 'array' THEN
    SELECT string_agg(CASE WHEN jsonb_typeof(e.v) IN ('array', 'object') THEN cosmos.json_text(e.v, ord -> (e.o - 1)::integer)
                           ELSE cosmos.json_scalar(e.v) END, ',' ORDER BY e.o)
      INTO r FROM jsonb_array_elements(v) WITH ORDINALITY AS e(v, o);
    RETURN '[' || coalesce(r, '') || ']';
  WHEN 'object' THEN
    IF json_typeof(ord) = 'object' THEN
      SELECT string_agg(to_jsonb(e.k)::text || ':' || CASE WHEN jsonb_typeof(e.v) IN ('array', 'object')
                          THEN cosmos.json_text(e.v, ord -> e.k) ELSE cosmos.json_scalar(e.v) END, ',' ORDER BY p.pos NULLS LAST, e.o)
        INTO r FROM jsonb_each(v) WITH ORDINALITY AS e(k, v, o) LEFT JOIN cosmos.json_key_pos(ord) AS p ON p.k = e.k;
    ELSE
      SELECT string_agg(to_jsonb(e.k)::text || ':' || CASE WHEN jsonb_typeof(e.v) IN ('array', 'object')
                          THEN cosmos.json_text(e.v, NULL) ELSE cosmos.json_scalar(e.v) END, ',' ORDER BY e.o)
        INTO r FROM jsonb_each(v) WITH ORDINALITY AS e(k, v, o);
    END IF;
    RETURN '{' || coalesce(r, '') || '}';
  ELSE
    RETURN cosmos.json_scalar(v);
  END CASE;
END
$$;

-- to_string is TOSTRING(v): a string as is, anything else as JSON.
CREATE FUNCTION cosmos.to_string(v jsonb, ord json) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE jsonb_typeof(v) WHEN 'string' THEN v #>> '{}'
    WHEN 'array' THEN cosmos.json_text(v, ord) WHEN 'object' THEN cosmos.json_text(v, ord)
    ELSE cosmos.json_scalar(v) END
$$;

-- ---------------------------------------------------------------------
-- Date and time. A date/time is handled as ticks: a numeric count of
-- 100-ns intervals since 1970-01-01T00:00:00Z, within the range of .NET's
-- DateTime (years 1 to 9999). Strings are ISO 8601 UTC,
-- YYYY-MM-DDThh:mm:ss[.f to .fffffff][Z]; the canonical output has seven
-- fractional digits and the Z.

-- dt_dim is the number of days in month m of year y.
CREATE FUNCTION cosmos.dt_dim(y numeric, m numeric) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN m = 2 THEN CASE WHEN (mod(y, 4) = 0 AND mod(y, 100) <> 0) OR mod(y, 400) = 0 THEN 29 ELSE 28 END
              WHEN m IN (4, 6, 9, 11) THEN 30 ELSE 31 END
$$;

-- dt_days0 and dt_days: days since 1970-01-01 of a valid date y-m-d of
-- year >= 1 (H. Hinnant's days_from_civil; yy is the year counted from
-- March).
CREATE FUNCTION cosmos.dt_days0(yy numeric, m numeric, d numeric) RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT 365 * yy + div(yy, 4) - div(yy, 100) + div(yy, 400)
         + div(153 * (m + CASE WHEN m > 2 THEN -3 ELSE 9 END) + 2, 5) + d - 1 - 719468
$$;

CREATE FUNCTION cosmos.dt_days(y numeric, m numeric, d numeric) RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT cosmos.dt_days0(y - CASE WHEN m <= 2 THEN 1 ELSE 0 END, m, d)
$$;

-- dt_date is the calendar date of ticks (the day count is clamped before
-- the cast, so that it never raises).
CREATE FUNCTION cosmos.dt_date(t numeric) RETURNS date
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN t IS NOT NULL THEN DATE '1970-01-01' + least(greatest(cosmos.fdiv(t, 864000000000), -800000), 3000000)::integer END
$$;

-- dt_unit is the canonical name of a date/time part ('yyyy', 'mm', 'dd',
-- 'hh', 'mi', 'ss', 'ms', 'mcs', 'ns'); NULL for an unknown part.
CREATE FUNCTION cosmos.dt_unit(p text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE lower(p)
    WHEN 'year' THEN 'yyyy' WHEN 'yyyy' THEN 'yyyy' WHEN 'yy' THEN 'yyyy'
    WHEN 'month' THEN 'mm' WHEN 'mm' THEN 'mm' WHEN 'm' THEN 'mm'
    WHEN 'day' THEN 'dd' WHEN 'dd' THEN 'dd' WHEN 'd' THEN 'dd'
    WHEN 'hour' THEN 'hh' WHEN 'hh' THEN 'hh'
    WHEN 'minute' THEN 'mi' WHEN 'mi' THEN 'mi' WHEN 'n' THEN 'mi'
    WHEN 'second' THEN 'ss' WHEN 'ss' THEN 'ss' WHEN 's' THEN 'ss'
    WHEN 'millisecond' THEN 'ms' WHEN 'ms' THEN 'ms'
    WHEN 'microsecond' THEN 'mcs' WHEN 'mcs' THEN 'mcs'
    WHEN 'nanosecond' THEN 'ns' WHEN 'ns' THEN 'ns' END
$$;

-- dt_unit_ticks is the length in ticks of a fixed-length part (NULL for
-- years and months).
CREATE FUNCTION cosmos.dt_unit_ticks(u text) RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE u WHEN 'dd' THEN 864000000000 WHEN 'hh' THEN 36000000000 WHEN 'mi' THEN 600000000
    WHEN 'ss' THEN 10000000 WHEN 'ms' THEN 10000 WHEN 'mcs' THEN 10 WHEN 'ns' THEN 0.01 END
$$;

-- The functions below are what the translation calls. They are PL/pgSQL
-- so that each argument is evaluated once: an inlined SQL function copies
-- its argument into every place that uses it, and nested ones multiply the
-- copies (a date string would be parsed dozens of times per row).

-- dt_ticks is the ticks of a date and time given by parts (f: 100-ns
-- units); NULL unless every part is an integer in its range.
CREATE FUNCTION cosmos.dt_ticks(y numeric, mo numeric, d numeric, h numeric, mi numeric, s numeric, f numeric) RETURNS numeric
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
BEGIN
  IF y <> trunc(y) OR mo <> trunc(mo) OR d <> trunc(d) OR h <> trunc(h) OR mi <> trunc(mi) OR s <> trunc(s) OR f <> trunc(f)
     OR y NOT BETWEEN 1 AND 9999 OR mo NOT BETWEEN 1 AND 12 OR d < 1 OR d > cosmos.dt_dim(y, mo)
     OR h NOT BETWEEN 0 AND 23 OR mi NOT BETWEEN 0 AND 59 OR s NOT BETWEEN 0 AND 59 OR f NOT BETWEEN 0 AND 9999999 THEN
    RETURN NULL;
  END IF;
  RETURN cosmos.dt_days(y, mo, d) * 864000000000 + h * 36000000000 + mi * 600000000 + s * 10000000 + f;
END
$$;

-- dt_parse is the ticks of a date/time string; NULL if it is not one.
CREATE FUNCTION cosmos.dt_parse(s text) RETURNS numeric
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
BEGIN
  -- (a match without captures is much faster than regexp_match: the fields
  -- are at fixed positions)
  IF s !~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,7})?Z?$' THEN
    RETURN NULL;
  END IF;
  RETURN cosmos.dt_ticks(substr(s, 1, 4)::numeric, substr(s, 6, 2)::numeric, substr(s, 9, 2)::numeric,
                         substr(s, 12, 2)::numeric, substr(s, 15, 2)::numeric, substr(s, 18, 2)::numeric,
                         rpad(rtrim(substr(s, 21), 'Z'), 7, '0')::numeric);
END
$$;

-- dt_fmt formats ticks canonically; NULL unless they are whole ticks
-- within years 1 to 9999.
CREATE FUNCTION cosmos.dt_fmt(t numeric) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  d date;
  x numeric;
BEGIN
  IF t <> trunc(t) OR t NOT BETWEEN -621355968000000000 AND 2534023007999999999 THEN
    RETURN NULL;
  END IF;
  d := cosmos.dt_date(t);
  x := cosmos.fmod(t, 864000000000);
  RETURN lpad(extract(year FROM d)::integer::text, 4, '0') || '-' || lpad(extract(month FROM d)::integer::text, 2, '0')
    || '-' || lpad(extract(day FROM d)::integer::text, 2, '0')
    || 'T' || lpad(div(x, 36000000000)::text, 2, '0') || ':' || lpad(mod(div(x, 600000000), 60)::text, 2, '0')
    || ':' || lpad(mod(div(x, 10000000), 60)::text, 2, '0') || '.' || lpad(mod(x, 10000000)::text, 7, '0') || 'Z';
END
$$;

-- dt_part is DATETIMEPART(u, t) for a canonical part u.
CREATE FUNCTION cosmos.dt_part(u text, t numeric) RETURNS numeric
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
BEGIN
  RETURN CASE u
    WHEN 'yyyy' THEN extract(year FROM cosmos.dt_date(t))
    WHEN 'mm' THEN extract(month FROM cosmos.dt_date(t))
    WHEN 'dd' THEN extract(day FROM cosmos.dt_date(t))
    WHEN 'hh' THEN div(cosmos.fmod(t, 864000000000), 36000000000)
    WHEN 'mi' THEN mod(div(cosmos.fmod(t, 864000000000), 600000000), 60)
    WHEN 'ss' THEN mod(div(cosmos.fmod(t, 864000000000), 10000000), 60)
    WHEN 'ms' THEN div(cosmos.fmod(t, 10000000), 10000)
    WHEN 'mcs' THEN div(cosmos.fmod(t, 10000000), 10)
    WHEN 'ns' THEN cosmos.fmod(t, 10000000) * 100 END;
END
$$;

-- dt_add is DATETIMEADD(u, n, t) in ticks: n must be an integer; months
-- and years keep the day of the month, clamped to the length of the month
-- reached (Jan 31 + 1 month = Feb 28/29); n nanoseconds add n / 100 ticks,
-- truncated. Months and years beyond years 1 to 9999 are NULL (dt_fmt
-- checks the range of the other results).
CREATE FUNCTION cosmos.dt_add(u text, n numeric, t numeric) RETURNS numeric
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  d date;
  total numeric;
  y numeric;
  m numeric;
BEGIN
  IF n <> trunc(n) THEN
    RETURN NULL;
  END IF;
  IF u IN ('yyyy', 'mm') THEN
    d := cosmos.dt_date(t);
    total := extract(year FROM d) * 12 + extract(month FROM d) - 1 + CASE u WHEN 'yyyy' THEN n * 12 ELSE n END;
    y := cosmos.fdiv(total, 12);
    m := cosmos.fmod(total, 12) + 1;
    IF y NOT BETWEEN 1 AND 9999 THEN
      RETURN NULL;
    END IF;
    RETURN cosmos.dt_days(y, m, least(extract(day FROM d), cosmos.dt_dim(y, m))) * 864000000000 + cosmos.fmod(t, 864000000000);
  END IF;
  IF u = 'ns' THEN
    RETURN t + trunc(n / 100);
  END IF;
  RETURN t + n * cosmos.dt_unit_ticks(u);
END
$$;

-- dt_diff is DATETIMEDIFF(u, a, b): the signed number of part boundaries
-- crossed from a to b.
CREATE FUNCTION cosmos.dt_diff(u text, a numeric, b numeric) RETURNS numeric
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
BEGIN
  RETURN CASE u
    WHEN 'yyyy' THEN extract(year FROM cosmos.dt_date(b)) - extract(year FROM cosmos.dt_date(a))
    WHEN 'mm' THEN (extract(year FROM cosmos.dt_date(b)) * 12 + extract(month FROM cosmos.dt_date(b)))
                 - (extract(year FROM cosmos.dt_date(a)) * 12 + extract(month FROM cosmos.dt_date(a)))
    WHEN 'ns' THEN (b - a) * 100
    ELSE cosmos.fdiv(b, cosmos.dt_unit_ticks(u)) - cosmos.fdiv(a, cosmos.dt_unit_ticks(u)) END;
END
$$;

-- dt_bin is DATETIMEBIN(t, u, size, origin): t rounded down to a multiple
-- of size parts counted from origin. Only fixed-length parts (days and
-- shorter) can be binned; size must be positive.
CREATE FUNCTION cosmos.dt_bin(t numeric, u text, size numeric, o numeric) RETURNS numeric
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  w numeric := trunc(size * cosmos.dt_unit_ticks(u));
BEGIN
  IF w IS NULL OR w < 1 THEN
    RETURN NULL;
  END IF;
  RETURN o + cosmos.fdiv(t - o, w) * w;
END
$$;
