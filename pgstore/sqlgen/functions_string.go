package sqlgen

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/cosmosql"
)

// String and conversion functions beyond the basic ones of functions.go.

// parseJSON translates STRINGTO*: the string argument parsed as strict JSON
// when it has type ty, else undefined.
func parseJSON(ty string) func(t *translator, a []string) string {
	return func(t *translator, a []string) string {
		return "cosmos.parse_json(cosmos.str(" + a[0] + "), '" + ty + "')"
	}
}

// containsSubs translates CONTAINS_ALL_* / CONTAINS_ANY_*: whether the string a[0] contains all (sqlFn
// cosmos.contains_all) or any (cosmos.contains_any) of the strings a[1:],
// case-insensitively when ci (cosmos.fold). A non-string argument makes
// the result undefined; the empty string is contained in every string.
func containsSubs(sqlFn string, ci bool) func(t *translator, a []string) string {
	return func(t *translator, a []string) string {
		subs := make([]string, len(a)-1)
		for i, x := range a[1:] {
			subs[i] = "cosmos.str(" + x + ")"
		}
		return sqlFn + "(cosmos.str(" + a[0] + "), ARRAY[" + strings.Join(subs, ", ") + "]::text[], " + strconv.FormatBool(ci) + ")"
	}
}

func init() {
	register(map[string]fn{
		// CONTAINS_ALL_CS(s, sub1, sub2, ...) and its _CI (case-insensitive)
		// and CONTAINS_ANY_ variants: see containsSubs.
		"CONTAINS_ALL_CS": {2, -1, containsSubs("cosmos.contains_all", false)},
		"CONTAINS_ALL_CI": {2, -1, containsSubs("cosmos.contains_all", true)},
		"CONTAINS_ANY_CS": {2, -1, containsSubs("cosmos.contains_any", false)},
		"CONTAINS_ANY_CI": {2, -1, containsSubs("cosmos.contains_any", true)},
		"REPLICATE": {2, 2, func(t *translator, a []string) string {
			return "to_jsonb(cosmos.replicate(cosmos.str(" + a[0] + "), cosmos.numx(" + a[1] + ")))"
		}},
		"LASTINDEXOF": {2, 2, func(t *translator, a []string) string {
			return "to_jsonb(cosmos.last_index_of(cosmos.str(" + a[0] + "), cosmos.str(" + a[1] + ")))"
		}},
		"STRINGJOIN": {2, 2, func(t *translator, a []string) string {
			return "to_jsonb(cosmos.string_join(" + a[0] + ", cosmos.str(" + a[1] + ")))"
		}},
		"STRINGSPLIT": {2, 2, func(t *translator, a []string) string {
			return "cosmos.string_split(cosmos.str(" + a[0] + "), cosmos.str(" + a[1] + "))"
		}},
		// STRINGTONUMBER yields a double, like every Cosmos number.
		"STRINGTONUMBER": {1, 1, func(t *translator, a []string) string {
			return "cosmos.f8(cosmos.num_f8(cosmos.numx(cosmos.parse_json(cosmos.str(" + a[0] + "), 'number'))))"
		}},
		"STRINGTOBOOLEAN": {1, 1, parseJSON("boolean")},
		"STRINGTONULL":    {1, 1, parseJSON("null")},
		"STRINGTOARRAY":   {1, 1, parseJSON("array")},
		"STRINGTOOBJECT":  {1, 1, parseJSON("object")},
	})

	// TOSTRING: a string as is, anything else as compact JSON with numbers
	// printed as JavaScript does; objects read from the stored document
	// keep its member order (the plain form, used over groups, has the
	// jsonb order).
	register(map[string]fn{"TOSTRING": {1, 1, func(t *translator, a []string) string { return toString(a[0], "NULL::json") }}})
	astFunctions["TOSTRING"] = astFn{1, 1, func(t *translator, x []cosmosql.Expr) (string, error) {
		a, err := t.vals(x)
		if err != nil {
			return "", err
		}
		if d, ok := t.rawDouble(a[0]); ok {
			// a computed number: NaN and the infinities by name
			return "to_jsonb(cosmos.num_text(" + d + "))", nil
		}
		return toString(a[0], t.orderedJSON(x[0])), nil
	}}

	// REGEXMATCH(s, pattern[, flags]): an unanchored search. The flags
	// (i, m, s, x) become embedded options of a PostgreSQL ARE; a pattern
	// known at translation time is adapted from PCRE (see pcreToARE). An
	// invalid pattern is an error of PostgreSQL's (class 22, a 400).
	register(map[string]fn{"REGEXMATCH": {2, 3, func(t *translator, a []string) string {
		return regexMatch(a[0], "cosmos.str("+a[1]+")", a[2:])
	}}})
	astFunctions["REGEXMATCH"] = astFn{2, 3, func(t *translator, x []cosmosql.Expr) (string, error) {
		p, ok := t.constString(x[1])
		if !ok {
			a, err := t.vals(x)
			if err != nil {
				return "", err
			}
			return regexMatch(a[0], "cosmos.str("+a[1]+")", a[2:]), nil
		}
		// (the pattern literal itself is not translated: every bind
		// argument must appear in the statement)
		a, err := t.vals(append([]cosmosql.Expr{x[0]}, x[2:]...))
		if err != nil {
			return "", err
		}
		return regexMatch(a[0], t.bind(pcreToARE(p))+"::text", a[1:]), nil
	}}
}

func toString(v, ord string) string { return "to_jsonb(cosmos.to_string(" + v + ", " + ord + "))" }

// regexMatch is REGEXMATCH of the string s and the text pattern pat, with
// the flags argument if any.
func regexMatch(s, pat string, flags []string) string {
	f := "''::text"
	if len(flags) > 0 {
		f = "cosmos.str(" + flags[0] + ")"
	}
	return "to_jsonb(cosmos.str(" + s + ") ~ ('(?' || cosmos.re_opts(" + f + ") || ')' || " + pat + "))"
}

// pcreToARE adapts the PCRE constructs whose PostgreSQL ARE spelling
// differs: \b and \B (word boundaries; \b is a backspace in an ARE), \z
// (end of string), and named groups (?<name>…) and (?P<name>…), which
// become plain groups. Everything else passes through.
func pcreToARE(p string) string {
	var b strings.Builder
	rs := []rune(p)
	inBracket := false
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case c == '\\' && i+1 < len(rs):
			i++
			switch n := rs[i]; {
			case !inBracket && n == 'b':
				b.WriteString(`\y`)
			case !inBracket && n == 'B':
				b.WriteString(`\Y`)
			case !inBracket && n == 'z':
				b.WriteString(`\Z`)
			default:
				b.WriteRune(c)
				b.WriteRune(n)
			}
		case inBracket:
			// [:class:], [.coll.] and [=equiv=] are copied whole
			if c == '[' && i+1 < len(rs) && strings.ContainsRune(":.=", rs[i+1]) {
				if k := indexFrom(rs, i+2, rs[i+1], ']'); k >= 0 {
					b.WriteString(string(rs[i : k+2]))
					i = k + 1
					continue
				}
			}
			if c == ']' {
				inBracket = false
			}
			b.WriteRune(c)
		case c == '[':
			inBracket = true
			b.WriteRune(c)
			// a leading ^, and a ] right after the opening, are part of the set
			if i+1 < len(rs) && rs[i+1] == '^' {
				i++
				b.WriteRune('^')
			}
			if i+1 < len(rs) && rs[i+1] == ']' {
				i++
				b.WriteRune(']')
			}
		case c == '(' && (hasRunes(rs, i, "(?P<") || (hasRunes(rs, i, "(?<") && i+3 < len(rs) && rs[i+3] != '=' && rs[i+3] != '!')):
			if k := indexFrom(rs, i+3, '>', 0); k >= 0 {
				b.WriteRune('(')
				i = k
				continue
			}
			b.WriteRune(c)
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

func hasRunes(rs []rune, i int, s string) bool {
	return strings.HasPrefix(string(rs[i:]), s)
}

// indexFrom is the index of the first x at or after from (followed by y
// unless y is 0), or -1.
func indexFrom(rs []rune, from int, x, y rune) int {
	for k := from; k < len(rs); k++ {
		if rs[k] == x && (y == 0 || (k+1 < len(rs) && rs[k+1] == y)) {
			return k
		}
	}
	return -1
}

// orderedJSON is the SQL json (not jsonb) of an expression that is a path
// into the container's stored document (c, c.a, c.a[0], c["b"]), read from
// the row's text body, which keeps the members in their stored order;
// NULL::json otherwise. Values still come from the jsonb: the json only
// orders object members.
func (t *translator) orderedJSON(e cosmosql.Expr) string {
	var path []string
	for {
		switch x := e.(type) {
		case *cosmosql.Ident:
			if b, ok := t.binds[x.Name]; !ok || !b.root {
				return "NULL::json"
			}
			for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
				path[i], path[j] = path[j], path[i]
			}
			// A body with a \u0000 escape is not read (its keys could not
			// be extracted as text).
			return "(CASE WHEN strpos(r.body, chr(92) || 'u0000') = 0 THEN r.body::json #> " + t.bind(path) + "::text[] END)"
		case *cosmosql.Member:
			path = append(path, x.Name)
			e = x.X
		case *cosmosql.Index:
			lit, ok := x.Index.(*cosmosql.Literal)
			if !ok {
				return "NULL::json"
			}
			switch v := lit.Value.(type) {
			case string:
				path = append(path, v)
			case float64:
				if v < 0 || v != float64(int64(v)) || v >= 1<<31 {
					return "NULL::json"
				}
				b, _ := json.Marshal(int64(v))
				path = append(path, string(b))
			default:
				return "NULL::json"
			}
			e = x.X
		default:
			return "NULL::json"
		}
	}
}
