package sqlgen_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/cosmosql"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/sqlgen"
)

// TestMoreFunctions checks the array aggregates, the multi-needle string
// tests, IS_DATETIME, the date part functions, the full-text functions and
// VECTORDISTANCE (values absent from the results are undefined).
func TestMoreFunctions(t *testing.T) {
	pool := fnDB(t)
	t.Run("array", func(t *testing.T) {
		runCases(t, pool, []fnCase{
			v(`ARRAY_SUM([1, 2, 3])`, `6`),
			v(`ARRAY_SUM([0.1, 0.2])`, `0.30000000000000004`),
			// (numbers compare within 1e-15: the exact doubles as strings)
			v(`TOSTRING(ARRAY_SUM([0.1, 0.2]))`, `"0.30000000000000004"`),
			v(`TOSTRING(ARRAY_AVG([0.1, 0.2, 0.3]))`, `"0.20000000000000004"`),
			v(`TOSTRING(ARRAY_MEDIAN([0.2, 0.1]))`, `"0.15000000000000002"`),
			v(`TOSTRING(ARRAY_MIN([1.0, 2]))`, `"1"`),
			v(`TOSTRING(VectorDistance([1, 2, 3], [4, 5, 6]))`, `"0.9746318461970762"`),
			v(`TOSTRING(VectorDistance([1, 2, 3], [4, 5, 6], false, {"distanceFunction": "euclidean"}))`, `"5.196152422706632"`),
			v(`TOSTRING(VectorDistance([1, 1], [1, 0]))`, `"0.7071067811865475"`),
			v(`TOSTRING(VectorDistance([0.1, 0.2], [0.3, 0.4], false, {"distanceFunction": "dotproduct"}))`, `"0.11000000000000001"`),
			// (outside 1e-150..1e150, exact sums rounded once)
			v(`TOSTRING(VectorDistance([1e200, 2e200], [1e200, 2e200]))`, `"1"`),
			v(`TOSTRING(VectorDistance([1e-200, 1e-200], [1e-200, 0]))`, `"0.7071067811865476"`),
			v(`ARRAY_SUM([-1.5, 2])`, `0.5`),
			v(`ARRAY_SUM([])`, `0`),
			v(`ARRAY_SUM([1, "2"])`, ``),
			v(`ARRAY_SUM([1, null])`, ``),
			v(`ARRAY_SUM([1, true])`, ``),
			v(`ARRAY_SUM([[1], 2])`, ``),
			v(`ARRAY_SUM([1, undefined])`, ``),
			v(`ARRAY_SUM("123")`, ``),
			v(`ARRAY_SUM({"a": 1})`, ``),
			v(`ARRAY_SUM(null)`, ``),
			v(`ARRAY_SUM(undefined)`, ``),
			v(`ARRAY_SUM([1e308, 1e308])`, ``),
			v(`ARRAY_SUM([1e308, -1e308, 5])`, `5`),
			v(`ARRAY_SUM([1e-320, 1e-320])`, `2e-320`),
			v(`ARRAY_AVG([1, 2, 3, 4])`, `2.5`),
			v(`ARRAY_AVG([0.1, 0.2, 0.3])`, `0.20000000000000004`),
			v(`ARRAY_AVG([7])`, `7`),
			v(`ARRAY_AVG([])`, ``),
			v(`ARRAY_AVG([1, "a"])`, ``),
			v(`ARRAY_AVG("a")`, ``),
			v(`ARRAY_AVG([1e308, 1e308])`, ``),
			v(`ARRAY_AVG([1e-320, 0, 0]) > 0`, `true`),
			v(`ARRAY_MEDIAN([3, 1, 2])`, `2`),
			v(`ARRAY_MEDIAN([4, 1, 3, 2])`, `2.5`),
			v(`ARRAY_MEDIAN([0.2, 0.1])`, `0.15000000000000002`),
			v(`ARRAY_MEDIAN([5])`, `5`),
			v(`ARRAY_MEDIAN([-1, -1, 10, 10, 10])`, `10`),
			v(`ARRAY_MEDIAN([1e308, 1e308])`, `1e308`),
			v(`ARRAY_MEDIAN([-1e308, 1e308])`, `0`),
			v(`ARRAY_MEDIAN([])`, ``),
			v(`ARRAY_MEDIAN([1, "2", 3])`, ``),
			v(`ARRAY_MEDIAN(1)`, ``),
			v(`ARRAY_MIN([3, 1, 2])`, `1`),
			v(`ARRAY_MIN([2, 1.5, 10])`, `1.5`),
			v(`ARRAY_MIN([1, "a", true, null, false])`, `null`),
			v(`ARRAY_MIN([true, false, 3])`, `false`),
			v(`ARRAY_MIN(["b", "a", "B"])`, `"B"`),
			v(`ARRAY_MIN([1, [2]])`, ``),
			v(`ARRAY_MIN([1, {"a": 1}])`, ``),
			v(`ARRAY_MIN([])`, ``),
			v(`ARRAY_MIN("abc")`, ``),
			v(`ARRAY_MAX([1, 10, 9])`, `10`),
			v(`ARRAY_MAX([1, "a", true, null])`, `"a"`),
			v(`ARRAY_MAX([true, false, null])`, `true`),
			v(`ARRAY_MAX(["a", "é", "z", "Ω"])`, `"Ω"`),
			v(`ARRAY_MAX(["a", "é", "z"])`, `"é"`),
			v(`ARRAY_MAX([1, -2.5, 1e300])`, `1e300`),
			v(`ARRAY_MAX([null])`, `null`),
			v(`ARRAY_MAX([[1], 2])`, ``),
			v(`ARRAY_MAX([])`, ``),
			v(`ARRAY_MAX(null)`, ``),
			d(`ARRAY_SUM(c.arr)`, `6`),
			d(`ARRAY_AVG(c.arr)`, `2`),
			d(`ARRAY_MEDIAN(c.arr)`, `2`),
			d(`ARRAY_MIN(c.arr)`, `1`),
			d(`ARRAY_MAX(c.arr)`, `3`),
			d(`ARRAY_SUM(c.s)`, ``),
			d(`ARRAY_MAX(c.missing)`, ``),
		})
	})
	t.Run("string", func(t *testing.T) {
		runCases(t, pool, []fnCase{
			v(`CONTAINS_ALL_CS("AdventureWorks", "Adventure", "Works")`, `true`),
			v(`CONTAINS_ALL_CS("AdventureWorks", "adventure", "Works")`, `false`),
			v(`CONTAINS_ALL_CI("AdventureWorks", "adventure", "WORKS")`, `true`),
			v(`CONTAINS_ALL_CI("AdventureWorks", "adventure", "bikes")`, `false`),
			v(`CONTAINS_ANY_CS("AdventureWorks", "x", "Works")`, `true`),
			v(`CONTAINS_ANY_CS("AdventureWorks", "x", "works")`, `false`),
			v(`CONTAINS_ANY_CI("AdventureWorks", "x", "works")`, `true`),
			v(`CONTAINS_ANY_CI("AdventureWorks", "x", "y", "z")`, `false`),
			v(`CONTAINS_ALL_CS("abc", "b")`, `true`),
			v(`CONTAINS_ALL_CS("abc", "")`, `true`),
			v(`CONTAINS_ANY_CS("", "")`, `true`),
			v(`CONTAINS_ANY_CS("", "a")`, `false`),
			// wrong types: undefined
			v(`CONTAINS_ALL_CS("abc", "a", 1)`, ``),
			v(`CONTAINS_ANY_CS("abc", "a", null)`, ``),
			v(`CONTAINS_ANY_CI("abc", "a", undefined)`, ``),
			v(`CONTAINS_ALL_CI(1, "1")`, ``),
			v(`CONTAINS_ANY_CS(["abc"], "a")`, ``),
			v(`CONTAINS_ALL_CS(null, "a")`, ``),
			// unicode (case folding beyond ASCII where the server has ICU)
			v(`CONTAINS_ALL_CS("naïve café 日本語 😀", "café", "日本", "😀")`, `true`),
			v(`CONTAINS_ALL_CI("ÉCOLE Ωmega", "école", "ωMEGA")`, `true`),
			v(`CONTAINS_ANY_CS("ÉCOLE", "école")`, `false`),
			// no pattern characters, no SQL
			v(`CONTAINS_ALL_CS("100%_x", "%_")`, `true`),
			v(`CONTAINS_ALL_CS("abc", "%")`, `false`),
			v(`CONTAINS_ANY_CS("abc", "a.c", "[a-c]", "_")`, `false`),
			v(`CONTAINS_ANY_CS("x'; DROP TABLE fn_items; --", "'; DROP TABLE")`, `true`),
			v(`CONTAINS_ALL_CI("abc", "') OR 1=1 --")`, `false`),
			d(`CONTAINS_ALL_CI(c.s, "A", "bC")`, `true`),
			d(`CONTAINS_ANY_CS(c.s, c.id, "c")`, `true`),
			d(`CONTAINS_ANY_CS(c.s, c.missing)`, ``),
		})
	})
	t.Run("datetime", func(t *testing.T) {
		const dt = `"2016-05-29T08:30:45.1301617"`
		runCases(t, pool, []fnCase{
			v(`IS_DATETIME("2021-01-08T18:35:00.0000000Z")`, `true`),
			v(`IS_DATETIME("2021-01-08T18:35:00Z")`, `true`),
			v(`IS_DATETIME("2021-01-08T18:35:00.5Z")`, `true`),
			v(`IS_DATETIME("2021-01-08T18:35:00")`, `true`),
			v(`IS_DATETIME("0001-01-01T00:00:00Z")`, `true`),
			v(`IS_DATETIME("2021-02-30T00:00:00Z")`, `false`),
			v(`IS_DATETIME("2021-01-08T24:00:00Z")`, `false`),
			v(`IS_DATETIME("2021-01-08T18:35:00.12345678Z")`, `false`),
			v(`IS_DATETIME("2021-01-08T18:35:00+01:00")`, `false`),
			v(`IS_DATETIME("2021-01-08")`, `false`),
			v(`IS_DATETIME(" 2021-01-08T18:35:00Z")`, `false`),
			v(`IS_DATETIME("2021-01-08T18:35:00Z'; --")`, `false`),
			v(`IS_DATETIME("")`, `false`),
			v(`IS_DATETIME(20210108)`, `false`),
			v(`IS_DATETIME(null)`, `false`),
			v(`IS_DATETIME(undefined)`, `false`),
			v(`IS_DATETIME(["2021-01-08T18:35:00Z"])`, `false`),
			d(`IS_DATETIME(c.dt)`, `true`),
			d(`IS_DATETIME(c.missing)`, `false`),
			v(`YEAR(`+dt+`)`, `2016`),
			v(`MONTH(`+dt+`)`, `5`),
			v(`DAY(`+dt+`)`, `29`),
			v(`HOUR(`+dt+`)`, `8`),
			v(`MINUTE(`+dt+`)`, `30`),
			v(`SECOND(`+dt+`)`, `45`),
			v(`YEAR("0001-01-01T00:00:00Z")`, `1`),
			v(`DAY("2016-02-29T23:59:59.9999999Z")`, `29`),
			v(`Year("2016-02-30T00:00:00Z")`, ``),
			v(`MONTH("May 2016")`, ``),
			v(`HOUR(1464510600)`, ``),
			v(`MINUTE(null)`, ``),
			v(`SECOND(undefined)`, ``),
			d(`DAY(c.dt)`, `8`),
			d(`HOUR(c.dt)`, `18`),
			d(`YEAR(c.s)`, ``),
		})
	})
	t.Run("fulltext", func(t *testing.T) {
		const s = `"The quick brown Fox"`
		runCases(t, pool, []fnCase{
			v(`FULLTEXTCONTAINSALL(`+s+`, "QUICK", "fox")`, `true`),
			v(`FULLTEXTCONTAINSALL(`+s+`, "quick", "cat")`, `false`),
			v(`FULLTEXTCONTAINSANY(`+s+`, "cat", "FOX")`, `true`),
			v(`FULLTEXTCONTAINSANY(`+s+`, "cat", "dog")`, `false`),
			v(`FULLTEXTCONTAINSALL(`+s+`, "brown")`, `true`),
			v(`FULLTEXTCONTAINSALL(1, "a")`, ``),
			v(`FULLTEXTCONTAINSANY(`+s+`, "fox", 1)`, ``),
			v(`FULLTEXTCONTAINSALL(`+s+`, null)`, ``),
			v(`FULLTEXTCONTAINS("Émile Zola", "émile")`, `true`),
			v(`FULLTEXTCONTAINSALL("Émile Zola", "émile", "ZOLA")`, `true`),
			v(`FULLTEXTCONTAINSANY("x", "%", "_", "'")`, `false`),
			d(`FULLTEXTCONTAINSANY(c.s, "ABC")`, `true`),
			// tokens, not substrings (reference A2: tokenized, stemmed,
			// stop words removed): "fox" is no token of "firefox", which a
			// substring test would have matched; stemming joins "Foxes"
			// and "fox"; a multi-word term holds when one of its words does
			// (on the service FullTextContains(c.text, 'United States')
			// returns texts with "United" and no form of "States"); a term
			// of stop words only matches nothing
			v(`FULLTEXTCONTAINS("firefox browser", "fox")`, `false`),
			v(`FULLTEXTCONTAINSANY("firefox browser", "fox", "box")`, `false`),
			v(`FULLTEXTCONTAINS("Two Foxes jumped", "fox")`, `true`),
			v(`FULLTEXTCONTAINS("the fox jumps", "JUMPING")`, `true`),
			v(`FULLTEXTCONTAINS("States of the United Kingdom", "United States")`, `true`),
			v(`FULLTEXTCONTAINS("the United Kingdom", "United States")`, `true`),
			v(`FULLTEXTCONTAINS("the Kingdom", "United States")`, `false`),
			v(`FULLTEXTCONTAINSALL("the United Kingdom", "United States", "kingdom")`, `true`),
			v(`FULLTEXTCONTAINSALL("the United Kingdom", "United States", "queen")`, `false`),
			v(`FULLTEXTCONTAINS("the fox", "the")`, `false`),
		})
	})
	t.Run("vector", func(t *testing.T) {
		runCases(t, pool, []fnCase{
			v(`VectorDistance([1, 0], [1, 0])`, `1`),
			v(`VectorDistance([1, 0], [0, 1])`, `0`),
			v(`VectorDistance([-1, 0], [1, 0])`, `-1`),
			v(`VectorDistance([1, 2, 3], [4, 5, 6])`, `0.9746318461970762`),
			v(`VectorDistance([1, 2, 3], [4, 5, 6], false)`, `0.9746318461970762`),
			v(`VectorDistance([1, 2, 3], [4, 5, 6], true, {"distanceFunction": "cosine"})`, `0.9746318461970762`),
			v(`VectorDistance([1, 2, 3], [4, 5, 6], false, {"distanceFunction": "dotproduct"})`, `32`),
			v(`VectorDistance([1, 2, 3], [4, 5, 6], false, {"distanceFunction": "DotProduct"})`, `32`),
			v(`VectorDistance([1, 2, 3], [4, 5, 6], false, {"distanceFunction": "euclidean", "dataType": "float32"})`, `5.196152422706632`),
			v(`VectorDistance([1, 2, 3], [4, 5, 6], false, {"dataType": "uint8"})`, `0.9746318461970762`),
			v(`VectorDistance([0.1, 0.2], [0.3, 0.4], false, {"distanceFunction": "dotproduct"})`, `0.11000000000000001`),
			v(`VectorDistance([1, 1e-100], [1, 0], false, {"distanceFunction": "euclidean"})`, `1e-100`),
			v(`VectorDistance([1, 1e-160], [1, 0], false, {"distanceFunction": "euclidean"})`, `1e-160`),
			v(`VectorDistance([1, 1 + 1e-15], [1, 1], false, {"distanceFunction": "euclidean"})`, `1.1102230246251565e-15`),
			v(`VectorDistance([1e-140, 0], [1e-140, 1e140])`, `1e-280`),
			v(`VectorDistance([1e-149, 0], [1e-149, 1e149])`, `1e-298`),
			v(`VectorDistance([1e-150, 0], [1e-150, 1e150])`, `1e-300`),
			v(`VectorDistance([1e-150, 0], [-1e-150, 1e150])`, `-1e-300`),
			v(`VectorDistance([3, 4], [0, 0], false, {"distanceFunction": "euclidean"})`, `5`),
			v(`VectorDistance([], [], false, {"distanceFunction": "dotproduct"})`, `0`),
			v(`VectorDistance([], [], false, {"distanceFunction": "euclidean"})`, `0`),
			v(`VectorDistance([], [])`, ``),
			v(`VectorDistance([0, 0], [1, 1])`, ``),
			v(`VectorDistance([0, 0], [1, 1], false, {"distanceFunction": "dotproduct"})`, `0`),
			v(`VectorDistance([1e200, 1e200], [1e200, 1e200])`, `1`),
			v(`VectorDistance([1e200, 1e200], [1e200, 1e200], false, {"distanceFunction": "dotproduct"})`, ``),
			v(`VectorDistance([1e200, 1], [1e200, 0], false, {"distanceFunction": "euclidean"})`, `1`),
			v(`VectorDistance([1e-300], [1e-300], false, {"distanceFunction": "dotproduct"})`, `0`),
			v(`VectorDistance([1e-300, 0], [2e-300, 0])`, `1`),
			// wrong types, lengths and options: undefined
			v(`VectorDistance([1, 2], [1, 2, 3])`, ``),
			v(`VectorDistance([1, "2"], [1, 2])`, ``),
			v(`VectorDistance([1, null], [1, 2])`, ``),
			v(`VectorDistance([1, [2]], [1, 2])`, ``),
			v(`VectorDistance("[1, 2]", [1, 2])`, ``),
			v(`VectorDistance({"a": 1}, [1])`, ``),
			v(`VectorDistance(undefined, [1])`, ``),
			v(`VectorDistance([1], [1], false, {"distanceFunction": "manhattan"})`, ``),
			v(`VectorDistance([1], [1], false, {"distanceFunction": 1})`, ``),
			v(`VectorDistance([1], [1], false, {"distanceFunction": "cosine'); DROP TABLE fn_items; --"})`, ``),
			v(`VectorDistance([1], [1], false, "cosine")`, ``),
			v(`VectorDistance([1], [1], false, undefined)`, `1`),
			d(`VectorDistance(c.arr, [1, 2, 3])`, `1`),
			d(`VectorDistance(c.arr, [3, 2, 1], false, {"distanceFunction": "dotproduct"})`, `10`),
			d(`VectorDistance(c.arr, c.missing)`, ``),
		})
	})
	t.Run("arity", func(t *testing.T) {
		for _, q := range []string{`SELECT VALUE CONTAINS_ALL_CS("a")`, `SELECT VALUE CONTAINS_ANY_CI("a")`,
			`SELECT VALUE FULLTEXTCONTAINSALL("a")`, `SELECT VALUE ARRAY_SUM([1], [2])`, `SELECT VALUE ARRAY_MIN()`,
			`SELECT VALUE YEAR()`, `SELECT VALUE IS_DATETIME("a", "b")`, `SELECT VALUE VectorDistance([1])`,
			`SELECT VALUE VectorDistance([1], [1], false, {}, 1)`} {
			pq, err := cosmosql.Parse(q)
			if err != nil {
				t.Fatalf("parse %s: %v", q, err)
			}
			_, err = sqlgen.Translate(pq, sqlgen.Input{Table: "fn_items", Live: "TRUE", PageSize: 10})
			var ue *sqlgen.UnsupportedError
			if !errors.As(err, &ue) {
				t.Errorf("%s: %v, want an UnsupportedError", q, err)
			}
		}
	})
}

// TestMoreFunctionsNeverRaise calls every new function with every
// combination of awkward arguments, parameters beyond the double range
// included: each statement must run (results may be undefined).
func TestMoreFunctionsNeverRaise(t *testing.T) {
	pool := fnDB(t)
	params := map[string]json.RawMessage{
		"@huge": json.RawMessage(`1e100000`), "@big": json.RawMessage(`1e400`), "@tiny": json.RawMessage(`1e-400`),
		"@deep": json.RawMessage(`1e-16000`), "@long": json.RawMessage(`0.` + strings.Repeat("1", 9000)),
		"@hugeArr": json.RawMessage(`[1e100000, 1e100000, -1e100000]`), "@tinyArr": json.RawMessage(`[1e-16000, 1e-400, 5e-324]`),
		"@mixedArr": json.RawMessage(`[1e400, 1, "a", null, true, [], {}]`), "@str": json.RawMessage(`"x'); SELECT pg_sleep(10); --"`),
		"@opts": json.RawMessage(`{"distanceFunction": "Euclidean"}`),
	}
	vals := []string{`1`, `-0`, `0.5`, `1e308`, `-1e308`, `1e-320`, `"a"`, `""`, `"2021-01-08T18:35:00Z"`, `null`, `true`, `undefined`,
		`[]`, `[1e308, 1e308, -1e308]`, `[1e-320, -1e-320, 5e-324]`, `[0, 0]`, `[1, 2]`, `[1, "2"]`, `{"a": 1}`, `{"distanceFunction": "dotproduct"}`,
		`@huge`, `@big`, `@tiny`, `@deep`, `@long`, `@hugeArr`, `@tinyArr`, `@mixedArr`, `@str`, `@opts`, `[@huge, 1]`, `[@deep, @deep]`, `[@long, 1]`,
		`[@big]`, `[@tiny]`, `@missing`}
	ctx := context.Background()
	run := func(exprs []string) {
		t.Helper()
		q := "SELECT VALUE [" + strings.Join(exprs, ", ") + "]"
		pq, err := cosmosql.Parse(q)
		if err != nil {
			t.Fatalf("parse %s: %v", q, err)
		}
		st, err := sqlgen.Translate(pq, sqlgen.Input{Table: "fn_items", Live: "TRUE", PageSize: 10, Params: params})
		if err != nil {
			t.Fatalf("translate %s: %v", q, err)
		}
		rows, err := pool.Query(ctx, st.SQL, st.Args...)
		if err == nil {
			for rows.Next() {
			}
			rows.Close()
			err = rows.Err()
		}
		if err != nil {
			t.Errorf("%s: %v", q, err)
		}
	}
	for _, f := range []string{"ARRAY_SUM", "ARRAY_AVG", "ARRAY_MEDIAN", "ARRAY_MIN", "ARRAY_MAX", "IS_DATETIME", "YEAR", "SECOND"} {
		var exprs []string
		for _, a := range vals {
			exprs = append(exprs, f+"("+a+")")
		}
		run(exprs)
	}
	for _, f := range []string{"CONTAINS_ALL_CS", "CONTAINS_ANY_CI", "FULLTEXTCONTAINSALL", "FULLTEXTCONTAINSANY", "VECTORDISTANCE"} {
		for _, a := range vals {
			var exprs []string
			for _, b := range vals {
				exprs = append(exprs, f+"("+a+", "+b+")")
			}
			run(exprs)
		}
	}
	for _, a := range vals {
		var exprs []string
		for _, b := range vals {
			for _, df := range []string{"cosine", "dotproduct", "euclidean"} {
				exprs = append(exprs, `VECTORDISTANCE(`+a+`, `+b+`, false, {"distanceFunction": "`+df+`"})`)
			}
			exprs = append(exprs, `VECTORDISTANCE(`+a+`, [1, 2], `+b+`, `+b+`)`)
		}
		run(exprs)
	}
}

// TestVectorEmbeddingPolicy: the distance function of a path declared by
// the container's vectorEmbeddingPolicy is the default of VECTORDISTANCE
// on that path; explicit options win.
func TestVectorEmbeddingPolicy(t *testing.T) {
	pool := fnDB(t)
	policy := map[string]string{"/arr": "dotproduct", "/nested/z": "euclidean"}
	cases := []struct {
		query  string
		policy map[string]string
		want   float64 // NaN: undefined
	}{
		{`SELECT VALUE VectorDistance(c.arr, [3, 2, 1]) FROM c`, nil, 10.0 / 14},
		{`SELECT VALUE VectorDistance(c.arr, [3, 2, 1]) FROM c`, policy, 10},
		{`SELECT VALUE VectorDistance(c["arr"], [3, 2, 1], true) FROM c`, policy, 10},
		{`SELECT VALUE VectorDistance(x.arr, [3, 2, 1]) FROM root x`, policy, 10},
		{`SELECT VALUE VectorDistance(c.arr, [3, 2, 1], false, {"dataType": "float32"}) FROM c`, policy, 10},
		{`SELECT VALUE VectorDistance(c.arr, [3, 2, 1], false, {"distanceFunction": "euclidean"}) FROM c`, policy, math.Sqrt(8)},
		{`SELECT VALUE VectorDistance(c.arr, [3, 2, 1]) FROM c`, map[string]string{"/arr": "Euclidean"}, math.Sqrt(8)},
		{`SELECT VALUE VectorDistance(c.arr, [3, 2, 1]) FROM c`, map[string]string{"/arr": "x'); DROP TABLE fn_items; --"}, math.NaN()},
		{`SELECT VALUE VectorDistance([3, 2, 1], c.arr) FROM c`, policy, 10.0 / 14},
		{`SELECT VALUE VectorDistance(c.other, [3, 2, 1]) FROM c`, policy, math.NaN()},
		{`SELECT VALUE {"d": VectorDistance(c.arr, [1, 1, 1])} FROM c WHERE VectorDistance(c.arr, [1, 1, 1]) > 5 ORDER BY VectorDistance(c.arr, [1, 1, 1])`, policy, 6},
	}
	for _, c := range cases {
		pq, err := cosmosql.Parse(c.query)
		if err != nil {
			t.Fatalf("parse %s: %v", c.query, err)
		}
		for range 2 { // applying twice changes nothing
			sqlgen.ApplyVectorEmbeddingPolicy(pq, c.policy)
		}
		st, err := sqlgen.Translate(pq, sqlgen.Input{Table: "fn_items", CollRID: []byte{1, 2, 3, 4, 5, 6, 7, 8},
			SelfPrefix: "dbs/x/colls/y/docs/", Live: "TRUE", PageSize: 10})
		if err != nil {
			t.Fatalf("translate %s: %v", c.query, err)
		}
		got, err := rowsOf(pool, st)
		if err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		if math.IsNaN(c.want) {
			if len(got) != 0 {
				t.Errorf("%s with %v = %v, want undefined", c.query, c.policy, got)
			}
			continue
		}
		if len(got) != 1 {
			t.Errorf("%s with %v: %v, want %v", c.query, c.policy, got, c.want)
			continue
		}
		if m, ok := got[0].(map[string]any); ok {
			got[0] = m["d"]
		}
		if !sameJSON(got[0], c.want) {
			t.Errorf("%s with %v = %v, want %v", c.query, c.policy, got[0], c.want)
		}
	}
}

// rowsOf runs a translated statement and decodes the last column of each
// row.
func rowsOf(pool *pgxpool.Pool, st *sqlgen.Statement) ([]any, error) {
	rows, err := pool.Query(context.Background(), st.SQL, st.Args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []any
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return nil, err
		}
		var v any
		s, _ := vals[len(vals)-1].(string)
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
