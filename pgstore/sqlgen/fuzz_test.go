package sqlgen

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/cosmosql"
)

// FuzzTranslate parses and translates arbitrary query text (with one
// parameter, @p, holding a string): translation never panics, fails only
// with the translator's own errors, and a successful statement is well
// quoted and carries no string value of the query (literal or parameter)
// as an SQL literal: values travel as bind arguments; only property names
// are written into the text, quoted (see QuoteLiteral).
//
//	go test -run '^$' -fuzz FuzzTranslate -fuzztime 3m ./pgstore/sqlgen/
func FuzzTranslate(f *testing.F) {
	seeds := []string{
		`SELECT * FROM c WHERE c.name = 'x'' OR 1=1 --'`,
		`SELECT VALUE {"a'b": c["it's"]} FROM c WHERE c.s IN ('a', "b", @p) ORDER BY c.n DESC`,
		`SELECT c.id, COUNT(1) AS n FROM c GROUP BY c.id`,
		`SELECT TOP 5 VALUE CONCAT(c.a, '$$', @p) FROM c JOIN t IN c.tags WHERE t LIKE '%\_%' ESCAPE '\'`,
		`SELECT VALUE ARRAY(SELECT VALUE x FROM x IN c.arr WHERE x > 'a') FROM c`,
		`SELECT DISTINCT VALUE c.x ?? 'd' FROM c OFFSET 1 LIMIT 2`,
		`SELECT VALUE ToString(1 / 0) FROM c WHERE STARTSWITH(c.s, "a'", true) AND REGEXMATCH(c.s, "^x'")`,
		`SELECT VALUE AVG(c.n) FROM c WHERE c.n BETWEEN 'a' AND 'b'`,
	}
	for _, s := range seeds {
		f.Add(s, "p'v")
	}
	for _, shape := range growthShapes {
		f.Add("SELECT * FROM c WHERE "+nest("Q", shape, 3)[1:]+" = 'lit'", "v")
	}
	f.Fuzz(func(t *testing.T, query, param string) {
		if len(query) > 4096 {
			return
		}
		q, err := cosmosql.Parse(query)
		if err != nil {
			return
		}
		p, _ := json.Marshal(param)
		st, err := Translate(q, Input{Table: "cosmos.items_1", CollRID: []byte{1, 2, 3, 4, 5, 6, 7, 8}, SelfPrefix: "dbs/x/colls/y/docs/",
			Live: "TRUE", Params: map[string]json.RawMessage{"@p": p}, PageSize: 10})
		if err != nil {
			var ue *UnsupportedError
			var qe *QueryError
			if !errors.As(err, &ue) && !errors.As(err, &qe) {
				t.Fatalf("%s: error %T %v", query, err, err)
			}
			return
		}
		literals, err := quotedSegments(st.SQL)
		if err != nil {
			t.Fatalf("%s: %v\n%s", query, err, st.SQL)
		}
		names := map[string]bool{}
		values := []string{param}
		cosmosql.WalkQuery(q, func(e cosmosql.Expr) bool {
			switch x := e.(type) {
			case *cosmosql.Member:
				names[x.Name] = true
			case *cosmosql.Index:
				if l, ok := x.Index.(*cosmosql.Literal); ok {
					if s, ok := l.Value.(string); ok {
						names[s] = true
					}
				}
			case *cosmosql.Literal:
				if s, ok := x.Value.(string); ok {
					values = append(values, s)
				}
			}
			return true
		})
		for _, v := range values {
			if len(v) < 3 || names[strings.ReplaceAll(v, "\x00", "\uFFFD")] || names[v] {
				continue // too short to tell from the translator's own text, or also a property name
			}
			if literals[v] {
				t.Fatalf("%s: the value %q is an SQL literal:\n%s", query, v, st.SQL)
			}
		}
	})
}

// quotedSegments returns the contents of the single-quoted literals of an
// SQL text (quotes doubled inside), failing on an unterminated one.
func quotedSegments(sql string) (map[string]bool, error) {
	out := map[string]bool{}
	for i := 0; i < len(sql); i++ {
		if sql[i] != '\'' {
			continue
		}
		var b strings.Builder
		j := i + 1
		for ; j < len(sql); j++ {
			if sql[j] == '\'' {
				if j+1 < len(sql) && sql[j+1] == '\'' {
					b.WriteByte('\'')
					j++
					continue
				}
				break
			}
			b.WriteByte(sql[j])
		}
		if j >= len(sql) {
			return nil, errors.New("unterminated quoted literal")
		}
		out[b.String()] = true
		i = j
	}
	return out, nil
}
