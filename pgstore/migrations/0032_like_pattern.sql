-- LIKE with a pattern computed per row (c.name LIKE c.pattern,
-- LIKE CONCAT(c.prefix, '%'), an escape read from the row): the pattern
-- is a value, never statement text. like_regex converts it into the
-- anchored POSIX regular expression that sqlgen's likeToRegex builds for
-- a constant pattern (the two must agree: TestLikeRegexAgreesWithSQL):
--   %  any string (a run of % is one .*, which matches the same strings
--      and keeps the expression small); _  one character;
--   [...] a set when a ']' follows at least one character after '[':
--     a leading '^' negates it (unless it is the only character), x-y is a
--     range of code points (nothing when y < x), every other character is
--     itself; an empty set matches nothing (negated: any character);
--   the escape character makes the next character literal (not inside a
--     set; at the very end of the pattern it is an ordinary character);
--   every other character is itself (regex metacharacters backslashed).
-- The result is always a valid regular expression. It is NULL when p is
-- NULL, or when esc_given and esc is not a one-character string (an
-- undefined result for the row).

CREATE FUNCTION cosmos.like_meta(c text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT CASE WHEN strpos('\.+*?()|[]{}^$', c) > 0 THEN '\' || c ELSE c END
$$;

CREATE FUNCTION cosmos.like_set_char(c text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT CASE WHEN strpos('\][^-', c) > 0 THEN '\' || c ELSE c END
$$;

CREATE FUNCTION cosmos.like_regex(p text, esc text, esc_given boolean) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  cs text[];
  n int;
  i int := 1;
  j int;
  k int;
  e int;
  c text;
  out text := '^';
  items text;
  neg boolean;
  pct boolean := false;
  was_pct boolean;
BEGIN
  IF p IS NULL OR (esc_given AND (esc IS NULL OR char_length(esc) <> 1)) THEN
    RETURN NULL;
  END IF;
  IF NOT esc_given THEN
    esc := NULL;
  END IF;
  cs := string_to_array(p, NULL);
  n := coalesce(array_length(cs, 1), 0);
  WHILE i <= n LOOP
    c := cs[i];
    was_pct := pct;
    pct := false;
    IF esc IS NOT NULL AND c = esc AND i < n THEN
      i := i + 1;
      out := out || cosmos.like_meta(cs[i]);
    ELSIF c = '%' THEN
      IF NOT was_pct THEN
        out := out || '.*';
      END IF;
      pct := true;
    ELSIF c = '_' THEN
      out := out || '.';
    ELSIF c = '[' THEN
      e := 0;
      j := i + 2;
      WHILE j <= n LOOP
        IF cs[j] = ']' THEN
          e := j;
          EXIT;
        END IF;
        j := j + 1;
      END LOOP;
      IF e = 0 THEN
        out := out || '\[';
      ELSE
        -- the set is cs[i+1 .. e-1]
        neg := e - i - 1 > 1 AND cs[i + 1] = '^';
        k := i + 1;
        IF neg THEN
          k := k + 1;
        END IF;
        items := '';
        WHILE k < e LOOP
          IF k + 2 < e AND cs[k + 1] = '-' THEN
            IF ascii(cs[k]) <= ascii(cs[k + 2]) THEN
              items := items || cosmos.like_set_char(cs[k]) || '-' || cosmos.like_set_char(cs[k + 2]);
            END IF;
            k := k + 3;
          ELSE
            items := items || cosmos.like_set_char(cs[k]);
            k := k + 1;
          END IF;
        END LOOP;
        IF items = '' AND neg THEN
          out := out || '.';
        ELSIF items = '' THEN
          out := out || '(?!)';
        ELSIF neg THEN
          out := out || '[^' || items || ']';
        ELSE
          out := out || '[' || items || ']';
        END IF;
        i := e;
      END IF;
    ELSE
      out := out || cosmos.like_meta(c);
    END IF;
    i := i + 1;
  END LOOP;
  RETURN out || '$';
END
$$;
