package emulator

import (
	"strings"
	"testing"
)

// cpBody is a container body with the given computedProperties member.
func cpBody(cps string) string {
	return `{"id":"c","partitionKey":{"paths":["/pk"]},"computedProperties":` + cps + `}`
}

// cpList is a computedProperties array of one property per query.
func cpList(queries ...string) string {
	var b strings.Builder
	b.WriteString("[")
	for i, q := range queries {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"name":"cp` + string(rune('a'+i)) + `","query":` + string(AppendJSONString(nil, q)) + `}`)
	}
	b.WriteString("]")
	return b.String()
}

// TestComputedPropertiesRefusalsCited: each refusal of a computedProperties
// definition, with the rule of the service it follows (reference "search
// and computed properties" B1, from the computed-properties page of the
// service's documentation).
func TestComputedPropertiesRefusalsCited(t *testing.T) {
	t.Parallel()
	many := make([]string, 21)
	for i := range many {
		many[i] = "SELECT VALUE c.a FROM c"
	}
	tests := []struct {
		source, body, msg string
	}{
		{"B1: at most 20 computed properties", cpBody(cpList(many...)), "exceeds the maximum of 20"},
		{"B1 (JS ComputedProperty): an array", cpBody(`{"name":"a","query":"SELECT VALUE 1 FROM c"}`), "'computedProperties' member must be a JSON array"},
		{"B1 (JS ComputedProperty): of objects", cpBody(`["SELECT VALUE c.a FROM c"]`), "must be a JSON object"},
		{"B1 (JS ComputedProperty): a string name", cpBody(`[{"name":1,"query":"SELECT VALUE c.a FROM c"}]`), "string 'name'"},
		{"B1 (JS ComputedProperty): a string query", cpBody(`[{"name":"a"}]`), "string 'query'"},
		{"B1: names are unique", cpBody(`[{"name":"a","query":"SELECT VALUE c.x FROM c"},{"name":"a","query":"SELECT VALUE c.y FROM c"}]`), "'a' is specified more than once"},
		{"B1: not a system property name (id)", cpBody(`[{"name":"id","query":"SELECT VALUE c.x FROM c"}]`), "reserved system property name"},
		{"B1: not a system property name (_rid)", cpBody(`[{"name":"_rid","query":"SELECT VALUE c.x FROM c"}]`), "reserved system property name"},
		{"B1: not a system property name (_ts)", cpBody(`[{"name":"_ts","query":"SELECT VALUE c.x FROM c"}]`), "reserved system property name"},
		{"B1: not a system property name (_etag)", cpBody(`[{"name":"_etag","query":"SELECT VALUE c.x FROM c"}]`), "reserved system property name"},
		{"B1: not a system property name (_self)", cpBody(`[{"name":"_self","query":"SELECT VALUE c.x FROM c"}]`), "reserved system property name"},
		{"B1: not a system property name (_attachments)", cpBody(`[{"name":"_attachments","query":"SELECT VALUE c.x FROM c"}]`), "reserved system property name"},
		{"B1: a valid query", cpBody(cpList("SELECT VALUE FROM c")), "has an invalid query: Message:"},
		{"B1: SELECT VALUE", cpBody(cpList("SELECT c.a FROM c")), "must use SELECT VALUE"},
		{"B1: SELECT VALUE (not *)", cpBody(cpList("SELECT * FROM c")), "must use SELECT VALUE"},
		{"B1: FROM the root alias", cpBody(cpList("SELECT VALUE 1")), "FROM clause must name the root item"},
		{"B1: FROM the root alias (not a path)", cpBody(cpList("SELECT VALUE ch.name FROM c.children ch")), "FROM clause must name the root item"},
		{"B1: FROM the root alias (not IN)", cpBody(cpList("SELECT VALUE t FROM t IN c.tags")), "FROM clause must name the root item"},
		{"B1: FROM the root alias (not a subquery)", cpBody(cpList("SELECT VALUE s.a FROM (SELECT VALUE c FROM c) s")), "FROM clause must name the root item"},
		{"B1: no JOIN", cpBody(cpList("SELECT VALUE t FROM c JOIN t IN c.tags")), "JOIN is not allowed"},
		{"B1: no WHERE", cpBody(cpList("SELECT VALUE c.a FROM c WHERE c.b = 1")), "WHERE is not allowed"},
		{"B1: no GROUP BY", cpBody(cpList("SELECT VALUE c.a FROM c GROUP BY c.a")), "GROUP BY is not allowed"},
		{"B1: no ORDER BY", cpBody(cpList("SELECT VALUE c.a FROM c ORDER BY c.a")), "ORDER BY is not allowed"},
		{"B1: no TOP", cpBody(cpList("SELECT TOP 1 VALUE c.a FROM c")), "TOP is not allowed"},
		{"B1: no DISTINCT", cpBody(cpList("SELECT DISTINCT VALUE c.a FROM c")), "DISTINCT is not allowed"},
		{"B1: no OFFSET LIMIT", cpBody(cpList("SELECT VALUE c.a FROM c OFFSET 0 LIMIT 1")), "OFFSET LIMIT is not allowed"},
		{"B1: no EXISTS", cpBody(cpList("SELECT VALUE EXISTS(SELECT VALUE t FROM t IN c.tags) FROM c")), "subqueries"},
		{"B1: no ARRAY subquery", cpBody(cpList("SELECT VALUE ARRAY(SELECT VALUE t FROM t IN c.tags) FROM c")), "subqueries"},
		{"B1: no scalar subquery", cpBody(cpList("SELECT VALUE (SELECT VALUE 1) FROM c")), "subqueries"},
		{"B1: no aggregate", cpBody(cpList("SELECT VALUE COUNT(1) FROM c")), "aggregate functions"},
		{"B1: no spatial function", cpBody(cpList(`SELECT VALUE ST_DISTANCE(c.loc, {"type": "Point", "coordinates": [0, 0]}) FROM c`)), "spatial functions"},
		{"B1: no GetCurrentDateTime", cpBody(cpList("SELECT VALUE GetCurrentDateTime() FROM c")), "nondeterministic"},
		{"B1: no GetCurrentTimestamp", cpBody(cpList("SELECT VALUE GetCurrentTimestamp() FROM c")), "nondeterministic"},
		{"B1: no GetCurrentTicks", cpBody(cpList("SELECT VALUE GetCurrentTicks() FROM c")), "nondeterministic"},
		{"B1: no RAND", cpBody(cpList("SELECT VALUE c.a * RAND() FROM c")), "nondeterministic"},
		{"B1: no UDF", cpBody(cpList("SELECT VALUE udf.f(c.a) FROM c")), "user-defined functions"},
		{"B1: no reference to another computed property", cpBody(`[{"name":"a","query":"SELECT VALUE c.x FROM c"},{"name":"b","query":"SELECT VALUE LOWER(c.a) FROM c"}]`), "references the computed property 'a'"},
		{"B1: no reference to another computed property (bracket, own alias)", cpBody(`[{"name":"b","query":"SELECT VALUE p[\"a\"] FROM products p"},{"name":"a","query":"SELECT VALUE 1 FROM c"}]`), "references the computed property 'a'"},
		{"B1: no reference to a computed property (its own name)", cpBody(`[{"name":"a","query":"SELECT VALUE c.a + 1 FROM c"}]`), "references the computed property 'a'"},
	}
	for _, tt := range tests {
		t.Run(shortName(tt.source), func(t *testing.T) {
			t.Parallel()
			_, err := normalizeBody(t, tt.body)
			wantBadRequest(t, err, tt.msg)
		})
	}
}

// TestComputedPropertiesAccepted: definitions the service accepts (B1, B5)
// are accepted and stored as sent.
func TestComputedPropertiesAccepted(t *testing.T) {
	t.Parallel()
	twenty := make([]string, 20)
	for i := range twenty {
		twenty[i] = "SELECT VALUE c.a FROM c"
	}
	for _, cps := range []string{
		`null`,
		`[]`,
		cpList(twenty...),
		`[{"name":"cp_lowerName","query":"SELECT VALUE LOWER(c.name) FROM c"}]`,
		`[{"name":"cp_20PercentDiscount","query":"SELECT VALUE (c.price * 0.2) FROM c"}]`,
		`[{"name":"cp_primaryCategory","query":"SELECT VALUE SUBSTRING(c.categoryName, 0, INDEX_OF(c.categoryName, ',')) FROM c"}]`,
		`[{"name":"cp_monthUpdated","query":"SELECT VALUE DateTimePart('m', TimestampToDateTime(c._ts*1000)) FROM c"}]`,
		`[{"name":"cp_splitSku","query":"SELECT VALUE StringSplit(p.sku, \"-\") FROM products p"}]`,
		`[{"name":"cp_power","query":"SELECT VALUE POWER(c.val, 2) FROM root c"}]`,
		// an undefined parameter, the Static date functions (one value per
		// query), members unknown to the emulator (the JS type allows them)
		`[{"name":"p","query":"SELECT VALUE c.a ?? @x FROM c"},{"name":"s","query":"SELECT VALUE GetCurrentDateTimeStatic() FROM c","extra":1}]`,
		// a name that is no identifier, and names that only look reserved
		`[{"name":"odd name","query":"SELECT VALUE c.a FROM c"},{"name":"ID","query":"SELECT VALUE c.a FROM c"},{"name":"_lsn","query":"SELECT VALUE c.a FROM c"}]`,
		// the same name as a persisted property it does not read
		`[{"name":"name","query":"SELECT VALUE LOWER(c.title) FROM c"}]`,
	} {
		t.Run(shortName(cps), func(t *testing.T) {
			t.Parallel()
			obj, err := normalizeBody(t, cpBody(cps))
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			v, _ := obj.Get("computedProperties")
			if got, want := compact(t, string(EncodeJSON(v))), compact(t, cps); got != want {
				t.Errorf("stored %s, want %s", got, want)
			}
		})
	}
}

func compact(t *testing.T, s string) string {
	t.Helper()
	v, err := DecodeJSON([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return string(EncodeJSON(v))
}

// TestExpandComputedProperties: the rewrite replaces references on the
// root alias, in every clause and in subqueries, and nothing else.
func TestExpandComputedProperties(t *testing.T) {
	t.Parallel()
	c := Container{Properties: []byte(`{"id":"c","computedProperties":[` +
		`{"name":"lower","query":"SELECT VALUE LOWER(p.name) FROM products p"},` +
		`{"name":"disc","query":"SELECT VALUE c.price * 0.2 FROM c"},` +
		`{"name":"prm","query":"SELECT VALUE c.a ?? @p FROM root c"}]}`)}
	tests := []struct{ in, want string }{
		// projections keep the property's name
		{`SELECT c.lower FROM c`, `SELECT LOWER(c.name) AS lower FROM c`},
		{`SELECT r["lower"], r.x FROM c r`, `SELECT LOWER(r.name) AS lower, r.x FROM c AS r`},
		{`SELECT VALUE x.lower FROM root x`, `SELECT VALUE LOWER(x.name) FROM root AS x`},
		{`SELECT c.lower AS l, c.lower.z FROM c`, `SELECT LOWER(c.name) AS l, LOWER(c.name).z FROM c`},
		// every clause
		{`SELECT c.price - c.disc AS d FROM c WHERE c.disc < 50`, `SELECT c.price - c.price * 0.2 AS d FROM c WHERE c.price * 0.2 < 50`},
		{`SELECT COUNT(1) AS n, c.lower FROM c GROUP BY c.lower`, `SELECT COUNT(1) AS n, LOWER(c.name) AS lower FROM c GROUP BY LOWER(c.name)`},
		{`SELECT * FROM c ORDER BY c.disc DESC`, `SELECT * FROM c ORDER BY c.price * 0.2 DESC`},
		{`SELECT VALUE MAX(c.disc) FROM c`, `SELECT VALUE MAX(c.price * 0.2) FROM c`},
		// parameters of a definition are undefined, whatever the query binds
		{`SELECT VALUE c.prm FROM c WHERE c.x = @p`, `SELECT VALUE c.a ?? undefined FROM c WHERE c.x = @p`},
		// whole items are left alone
		{`SELECT * FROM c`, `SELECT * FROM c`},
		{`SELECT VALUE c FROM c`, `SELECT VALUE c FROM c`},
		{`SELECT c FROM c`, `SELECT c FROM c`},
		// subqueries that refer to the root alias
		{`SELECT VALUE EXISTS(SELECT VALUE t FROM t IN c.tags WHERE t = c.lower) FROM c`,
			`SELECT VALUE EXISTS(SELECT VALUE t FROM t IN c.tags WHERE t = LOWER(c.name)) FROM c`},
		{`SELECT VALUE ARRAY(SELECT VALUE c.lower FROM x IN c.xs) FROM c`,
			`SELECT VALUE ARRAY(SELECT VALUE LOWER(c.name) FROM x IN c.xs) FROM c`},
		{`SELECT VALUE t FROM c JOIN t IN c.lower`, `SELECT VALUE t FROM c JOIN t IN LOWER(c.name)`},
		// shadowing: an alias of the same name that is not the root
		{`SELECT VALUE EXISTS(SELECT VALUE 1 FROM c IN c.children WHERE c.lower = 'a') FROM c`,
			`SELECT VALUE EXISTS(SELECT VALUE 1 FROM c IN c.children WHERE c.lower = "a") FROM c`},
		{`SELECT VALUE s.lower FROM (SELECT * FROM c) s`, `SELECT VALUE s.lower FROM (SELECT * FROM c) AS s`},
		{`SELECT VALUE s FROM (SELECT VALUE c.lower FROM c) s`, `SELECT VALUE s FROM (SELECT VALUE LOWER(c.name) FROM c) AS s`},
		{`SELECT VALUE ch.lower FROM c.children ch`, `SELECT VALUE ch.lower FROM c.children AS ch`},
		{`SELECT VALUE t.lower FROM c JOIN t IN c.tags`, `SELECT VALUE t.lower FROM c JOIN t IN c.tags`},
		// names that are no computed property, or not on the root
		{`SELECT c.name, c.lower2, c.x.lower FROM c`, `SELECT c.name, c.lower2, c.x.lower FROM c`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			q, err := ParseQuery(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if err := expandComputedProperties(c, q); err != nil {
				t.Fatal(err)
			}
			if q.SQL() != tt.want {
				t.Errorf("expanded\n got %s\nwant %s", q.SQL(), tt.want)
			}
		})
	}
	// an ORDER BY term that names a computed property keeps its name, the
	// path a composite index gives it
	q, _ := ParseQuery(`SELECT * FROM c ORDER BY c.lower, c["disc"] DESC, c.price`)
	if err := expandComputedProperties(c, q); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range q.OrderBy {
		names = append(names, o.Computed)
	}
	if got := strings.Join(names, ","); got != "lower,disc," {
		t.Errorf("ORDER BY computed names %q, want \"lower,disc,\"", got)
	}
	// a container without computed properties: the query is untouched
	q, _ = ParseQuery(`SELECT c.lower FROM c`)
	if err := expandComputedProperties(Container{Properties: []byte(`{"id":"c"}`)}, q); err != nil || q.SQL() != `SELECT c.lower FROM c` {
		t.Errorf("no computed properties: %s, %v", q.SQL(), err)
	}
}
