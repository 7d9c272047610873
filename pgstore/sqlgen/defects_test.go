package sqlgen

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestEveryBindArgumentAppears: every bind argument a translation makes is
// used by its statement; PostgreSQL cannot type one that is not ("could
// not determine data type of parameter $1", a 500), as happened when an
// index that can select nothing (1.5, beyond 2^31) dropped its base's SQL.
func TestEveryBindArgumentAppears(t *testing.T) {
	t.Parallel()
	for _, q := range []string{
		"SELECT VALUE c.arr[0][1.5] FROM c",
		"SELECT VALUE c.arr[0][9007199254740993] FROM c",
		"SELECT VALUE c.arr[0].x[0.5] FROM c",
		"SELECT VALUE c.arr[0][-1] FROM c",
		"SELECT VALUE c.arr[0][2147483648] FROM c",
		"SELECT VALUE c.arr[0][1] FROM c",
	} {
		t.Run(q, func(t *testing.T) {
			st, err := translate(t, q, nil)
			if err != nil {
				t.Fatal(err)
			}
			used := map[int]bool{}
			for _, m := range regexp.MustCompile(`\$(\d+)`).FindAllStringSubmatch(st.SQL, -1) {
				n, _ := strconv.Atoi(m[1])
				used[n] = true
			}
			for i := 1; i <= len(st.Args); i++ {
				if !used[i] {
					t.Errorf("argument $%d (%v) is not in the statement:\n%s", i, st.Args[i-1], st.SQL)
				}
			}
		})
	}
}

// TestNULBecomesReplacementInArguments: U+0000, which PostgreSQL's text
// and jsonb refuse, reaches no bind argument; it becomes U+FFFD, as in the
// documents' queryable column, so that a constant matches the item holding
// it. Escaped backslashes followed by "u0000" are text, not a NUL.
func TestNULBecomesReplacementInArguments(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, query, param string
		want               string // a bind argument expected, exactly
	}{
		{"literal", `SELECT * FROM c WHERE c.s = "a\u0000b"`, "", `"a\ufffdb"`},
		{"parameter", `SELECT * FROM c WHERE c.s = @p`, `"a\u0000b"`, `"a\ufffdb"`},
		{"escaped backslash", `SELECT * FROM c WHERE c.s = @p`, `"a\\u0000b"`, `"a\\u0000b"`},
		{"two in a row", `SELECT * FROM c WHERE c.s = @p`, `"\u0000\u0000"`, `"\ufffd\ufffd"`},
		{"LIKE pattern", `SELECT * FROM c WHERE c.s LIKE "a\u0000%"`, "", "^a\uFFFD.*$"},
		{"RegexMatch pattern", `SELECT * FROM c WHERE RegexMatch(c.s, "a\u0000")`, "", "a\uFFFD"},
	} {
		t.Run(c.name, func(t *testing.T) {
			params := map[string]json.RawMessage{}
			if c.param != "" {
				params["@p"] = json.RawMessage(c.param)
			}
			st, err := translate(t, c.query, params)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, a := range st.Args {
				s, ok := a.(string)
				if !ok {
					continue
				}
				if strings.ContainsRune(s, 0) || strings.Contains(s, `\u0000`) && c.name != "escaped backslash" {
					t.Errorf("argument %q holds a NUL", s)
				}
				found = found || s == c.want
			}
			if !found {
				t.Errorf("no argument %q among %q", c.want, st.Args)
			}
		})
	}
}

// TestJSONWithoutNUL: the \u0000 escapes of a JSON text, and only they,
// become \ufffd.
func TestJSONWithoutNUL(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{`"a"`, `"a"`},
		{`"\u0000"`, `"\ufffd"`},
		{`"\\u0000"`, `"\\u0000"`},
		{`"\\\u0000"`, `"\\\ufffd"`},
		{`{"\u0000":["\u0000", 1]}`, `{"\ufffd":["\ufffd", 1]}`},
		{`"\u00001"`, `"\ufffd1"`},
		{`"\"\u0000"`, `"\"\ufffd"`},
	} {
		if got := string(jsonWithoutNUL([]byte(c.in))); got != c.want {
			t.Errorf("jsonWithoutNUL(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}
