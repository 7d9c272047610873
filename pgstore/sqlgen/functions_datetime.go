package sqlgen

// Date and time functions (reference §6.10). Dates and times are ISO 8601
// UTC strings, canonically YYYY-MM-DDThh:mm:ss.fffffffZ; the SQL helpers of
// migration 0004 work on ticks (numeric, 100 ns since the Unix epoch):
// cosmos.dt_parse reads a string (NULL when invalid) and cosmos.dt_fmt
// writes one (NULL outside years 1 to 9999).

// dtTicks is the ticks of a date/time string argument (NULL if invalid).
func dtTicks(a string) string { return "cosmos.dt_parse(cosmos.str(" + a + "))" }

// dtUnit is the canonical date/time part named by a string argument.
func dtUnit(a string) string { return "cosmos.dt_unit(cosmos.str(" + a + "))" }

// dtString is the canonical date/time string of ticks.
func dtString(ticks string) string { return "to_jsonb(cosmos.dt_fmt(" + ticks + "))" }

// dtPart is DATETIMEPART of a canonical part (a trusted SQL text
// expression) and a date/time argument.
func dtPart(unit, a string) string {
	return "to_jsonb(cosmos.dt_part(" + unit + ", " + dtTicks(a) + "))"
}

// nowTicks is the current time in ticks. The STATIC variants use the
// statement's start (now(): constant for the whole query), the others the
// time of each evaluation.
//
// The time is the emulator's (Input.NowTicks, from emulator.Clock, which
// tests may move); without it, PostgreSQL's clock.
func nowTicks(t *translator, static bool) string {
	if t.in.NowTicks != 0 {
		t.usedNow = true
		now := t.bind(t.in.NowTicks) + "::bigint"
		if static {
			return now
		}
		// the emulator's time at the start plus what has elapsed since
		return "(" + now + " + trunc(extract(epoch FROM clock_timestamp() - now()) * 10000000)::bigint)"
	}
	ts := "clock_timestamp()"
	if static {
		ts = "now()"
	}
	return "trunc(extract(epoch FROM " + ts + ") * 10000000)"
}

func init() {
	register(map[string]fn{
		"DATETIMEADD": {3, 3, func(t *translator, a []string) string {
			return dtString("cosmos.dt_add(" + dtUnit(a[0]) + ", cosmos.numx(" + a[1] + "), " + dtTicks(a[2]) + ")")
		}},
		"DATETIMEBIN": {2, 4, func(t *translator, a []string) string {
			size, origin := "1::numeric", "0::numeric"
			if len(a) > 2 {
				size = "cosmos.numx(" + a[2] + ")"
			}
			if len(a) > 3 {
				origin = dtTicks(a[3])
			}
			return dtString("cosmos.dt_bin(" + dtTicks(a[0]) + ", " + dtUnit(a[1]) + ", " + size + ", " + origin + ")")
		}},
		"DATETIMEDIFF": {3, 3, func(t *translator, a []string) string {
			return "to_jsonb(cosmos.dt_diff(" + dtUnit(a[0]) + ", " + dtTicks(a[1]) + ", " + dtTicks(a[2]) + "))"
		}},
		"DATETIMEFROMPARTS": {3, 7, func(t *translator, a []string) string {
			parts := make([]string, 7)
			for i := range parts {
				parts[i] = "0::numeric"
				if i < len(a) {
					parts[i] = "cosmos.numx(" + a[i] + ")"
				}
			}
			s := "cosmos.dt_ticks("
			for i, p := range parts {
				if i > 0 {
					s += ", "
				}
				s += p
			}
			return dtString(s + ")")
		}},
		"DATETIMEPART": {2, 2, func(t *translator, a []string) string {
			return dtPart(dtUnit(a[0]), a[1])
		}},
		// YEAR(dt), MONTH(dt), DAY(dt), HOUR(dt), MINUTE(dt) and SECOND(dt)
		// are DATETIMEPART of that part.
		"YEAR":   {1, 1, func(t *translator, a []string) string { return dtPart("'yyyy'", a[0]) }},
		"MONTH":  {1, 1, func(t *translator, a []string) string { return dtPart("'mm'", a[0]) }},
		"DAY":    {1, 1, func(t *translator, a []string) string { return dtPart("'dd'", a[0]) }},
		"HOUR":   {1, 1, func(t *translator, a []string) string { return dtPart("'hh'", a[0]) }},
		"MINUTE": {1, 1, func(t *translator, a []string) string { return dtPart("'mi'", a[0]) }},
		"SECOND": {1, 1, func(t *translator, a []string) string { return dtPart("'ss'", a[0]) }},
		// IS_DATETIME(v): whether v is a string the date/time functions
		// accept (YYYY-MM-DDThh:mm:ss, optionally .f to .fffffff, optionally
		// Z, a valid date and time in years 1 to 9999), i.e. exactly when
		// DATETIMETOTICKS(v) is defined; never undefined.
		"IS_DATETIME": {1, 1, func(t *translator, a []string) string {
			return "to_jsonb(" + dtTicks(a[0]) + " IS NOT NULL)"
		}},
		"DATETIMETOTICKS": {1, 1, func(t *translator, a []string) string {
			return "to_jsonb(" + dtTicks(a[0]) + ")"
		}},
		// DATETIMETOTIMESTAMP: milliseconds, truncated toward zero.
		"DATETIMETOTIMESTAMP": {1, 1, func(t *translator, a []string) string {
			return "to_jsonb(div(" + dtTicks(a[0]) + ", 10000))"
		}},
		// TICKSTODATETIME and TIMESTAMPTODATETIME truncate fractions of a
		// tick.
		"TICKSTODATETIME": {1, 1, func(t *translator, a []string) string {
			return dtString("trunc(cosmos.numx(" + a[0] + "))")
		}},
		"TIMESTAMPTODATETIME": {1, 1, func(t *translator, a []string) string {
			return dtString("trunc(cosmos.numx(" + a[0] + ") * 10000)")
		}},
		"GETCURRENTDATETIME":       {0, 0, func(t *translator, a []string) string { return dtString(nowTicks(t, false)) }},
		"GETCURRENTDATETIMESTATIC": {0, 0, func(t *translator, a []string) string { return dtString(nowTicks(t, true)) }},
		"GETCURRENTTICKS":          {0, 0, func(t *translator, a []string) string { return "to_jsonb(" + nowTicks(t, false) + ")" }},
		"GETCURRENTTICKSSTATIC":    {0, 0, func(t *translator, a []string) string { return "to_jsonb(" + nowTicks(t, true) + ")" }},
		"GETCURRENTTIMESTAMP": {0, 0, func(t *translator, a []string) string {
			return "to_jsonb(div(" + nowTicks(t, false) + ", 10000))"
		}},
		"GETCURRENTTIMESTAMPSTATIC": {0, 0, func(t *translator, a []string) string {
			return "to_jsonb(div(" + nowTicks(t, true) + ", 10000))"
		}},
	})
}
