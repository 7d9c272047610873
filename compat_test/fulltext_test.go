package compat_test

import (
	"encoding/json"
	"math"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// ftContainer creates container coll in database db (partition key /pk)
// over raw REST from the rest of its body (policies), and writes items.
func ftContainer(t *testing.T, raw *rawClient, db, coll, rest string, items ...string) {
	t.Helper()
	body := `{"id":"` + coll + `","partitionKey":{"paths":["/pk"],"kind":"Hash"}` + rest + `}`
	wantStatus(t, raw.do(http.MethodPost, "/dbs/"+db+"/colls", []byte(body)), http.StatusCreated)
	for _, it := range items {
		var m map[string]any
		if err := json.Unmarshal([]byte(it), &m); err != nil {
			t.Fatal(err)
		}
		pk, _ := json.Marshal([]any{m["pk"]})
		wantStatus(t, raw.do(http.MethodPost, docsPath(db, coll), []byte(it), pkHeader, string(pk)), http.StatusCreated)
	}
}

// ftQuery runs a query over raw REST, cross-partition (pk "") or in
// partition pk, following continuations, and returns the results as
// one JSON array; a failure is returned as the response.
func ftQuery(t *testing.T, raw *rawClient, db, coll, query, pk string, params ...any) (string, *rawResp) {
	t.Helper()
	if params == nil {
		params = []any{}
	}
	body, _ := json.Marshal(map[string]any{"query": query, "parameters": params})
	var out []string
	cont := ""
	start := time.Now()
	for {
		hdr := []string{"Content-Type", "application/query+json", "x-ms-documentdb-isquery", "True", "x-ms-max-item-count", "2"}
		if pk == "" {
			hdr = append(hdr, "x-ms-documentdb-query-enablecrosspartition", "True")
		} else {
			hdr = append(hdr, pkHeader, `["`+pk+`"]`)
		}
		if cont != "" {
			hdr = append(hdr, "x-ms-continuation", cont)
		}
		resp := raw.do(http.MethodPost, docsPath(db, coll), body, hdr...)
		if resp.Status != http.StatusOK {
			return "", &resp
		}
		var page struct{ Documents []json.RawMessage }
		if err := json.Unmarshal(resp.Body, &page); err != nil {
			t.Fatal(err)
		}
		for _, d := range page.Documents {
			out = append(out, string(d))
		}
		if cont = resp.Header.Get("x-ms-continuation"); cont == "" {
			break
		}
	}
	t.Logf("%s (pk %q): %v", query, pk, time.Since(start).Round(time.Microsecond))
	return "[" + strings.Join(out, ",") + "]", nil
}

// mustFTQuery is ftQuery that fails the test on an error answer.
func mustFTQuery(t *testing.T, raw *rawClient, db, coll, query, pk string, params ...any) string {
	t.Helper()
	got, resp := ftQuery(t, raw, db, coll, query, pk, params...)
	if resp != nil {
		t.Fatalf("%s: status %d: %s", query, resp.Status, resp.Body)
	}
	return got
}

// foxCorpus is four documents whose texts hold "fox" 1, 3, 0 and 2 times
// (all of about the same length), in two partitions.
var foxCorpus = []string{
	`{"id":"one","pk":"a","text":"the quick brown fox jumps over the lazy dog"}`,
	`{"id":"three","pk":"b","text":"a fox, a second fox and a third fox"}`,
	`{"id":"none","pk":"a","text":"the lazy dog sleeps all day in the sun"}`,
	`{"id":"two","pk":"b","text":"the fox chased another fox into the woods"}`,
}

// TestFullTextScoreMostOccurrencesFirst: SELECT TOP 3 VALUE c.id FROM c
// ORDER BY RANK FullTextScore(c.text, 'fox') ranks the document with the
// most occurrences first, cross-partition (as @azure/cosmos sends it) and
// through azcosmos in one partition; before, ORDER BY RANK was a 400.
func TestFullTextScoreMostOccurrencesFirst(t *testing.T) {
	f := newFixture(t)
	mustDB(t, f.c, "ft")
	ftContainer(t, f.raw, "ft", "fox", "", foxCorpus...)
	const q = `SELECT TOP 3 VALUE c.id FROM c ORDER BY RANK FullTextScore(c.text, 'fox')`
	if got, want := mustFTQuery(t, f.raw, "ft", "fox", q, ""), `["three","two","one"]`; got != want {
		t.Errorf("cross-partition %s\n got %s\nwant %s", q, got, want)
	}
	cc, err := f.c.NewContainer("ft", "fox")
	if err != nil {
		t.Fatal(err)
	}
	pager := cc.NewQueryItemsPager(q, azcosmos.NewPartitionKeyString("b"), nil)
	var ids []string
	for pager.More() {
		page, err := pager.NextPage(bg)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			var id string
			_ = json.Unmarshal(it, &id)
			ids = append(ids, id)
		}
	}
	if got := strings.Join(ids, ","); got != "three,two" {
		t.Errorf("azcosmos in partition b: %s, want three,two", got)
	}
}

// bm25 is the score the emulator documents (k1 1.2, b 0.75, Lucene's idf)
// of a document with dl tokens holding a term tf times, in a corpus of n
// documents with total tokens where df hold the term.
func bm25(tf, dl, n, total, df float64) float64 {
	if tf == 0 {
		return 0
	}
	idf := math.Log(1 + (n-df+0.5)/(df+0.5))
	return idf * tf * 2.2 / (tf + 1.2*(0.25+0.75*dl/(total/n)))
}

// TestFullTextScoreBM25ByHand ranks a corpus whose BM25 order is computed
// here from its token counts (no word of it is a stop word; each word is
// one token): length normalisation puts the short document with one
// "apple" before the long one with two, which a count of occurrences
// would not. The second case shows the statistics are the container's,
// not the partition's: in partition p1 "xenon" is the commoner term, so
// local statistics would rank the "yttrium" document first, while over
// the container "yttrium" is commoner and the "xenon" documents win.
func TestFullTextScoreBM25ByHand(t *testing.T) {
	f := newFixture(t)
	mustDB(t, f.c, "ft")
	ftContainer(t, f.raw, "ft", "fruit", "",
		`{"id":"d1","pk":"p","text":"apple banana"}`,
		`{"id":"d2","pk":"p","text":"apple apple banana cherry grape melon lemon peach plum kiwi"}`,
		`{"id":"d3","pk":"p","text":"banana cherry"}`,
		`{"id":"d4","pk":"p","text":"apple cherry grape melon"}`)
	// n 4, total 2+10+2+4 = 18 tokens, df(apple) 3
	type scored struct {
		id    string
		score float64
	}
	docs := []scored{
		{"d1", bm25(1, 2, 4, 18, 3)},  // 0.4616
		{"d2", bm25(2, 10, 4, 18, 3)}, // 0.3650
		{"d3", bm25(0, 2, 4, 18, 3)},  // 0
		{"d4", bm25(1, 4, 4, 18, 3)},  // 0.3737
	}
	sort.SliceStable(docs, func(i, j int) bool { return docs[i].score > docs[j].score })
	var want []string
	for _, d := range docs {
		want = append(want, `"`+d.id+`"`)
	}
	t.Logf("BM25 by hand: %+v", docs)
	q := `SELECT VALUE c.id FROM c ORDER BY RANK FullTextScore(c.text, 'apple')`
	if got := mustFTQuery(t, f.raw, "ft", "fruit", q, "p"); got != "["+strings.Join(want, ",")+"]" {
		t.Errorf("%s\n got %s\nwant [%s]", q, got, strings.Join(want, ","))
	}
	if want[0] != `"d1"` || want[2] != `"d2"` {
		t.Fatalf("the corpus no longer shows length normalisation: %v", want)
	}

	ftContainer(t, f.raw, "ft", "stats", "",
		`{"id":"A","pk":"p1","text":"xenon filler"}`,
		`{"id":"B","pk":"p1","text":"yttrium filler"}`,
		`{"id":"C","pk":"p1","text":"xenon filler"}`,
		`{"id":"D","pk":"p2","text":"yttrium filler"}`,
		`{"id":"E","pk":"p2","text":"yttrium filler"}`,
		`{"id":"F","pk":"p2","text":"yttrium filler"}`)
	// global: n 6, total 12, df(xenon) 2, df(yttrium) 4 -> xenon's idf is
	// higher; local to p1: df(xenon) 2, df(yttrium) 1 -> yttrium's is
	global, local := bm25(1, 2, 6, 12, 2) > bm25(1, 2, 6, 12, 4), bm25(1, 2, 3, 6, 2) > bm25(1, 2, 3, 6, 1)
	if !global || local {
		t.Fatalf("the corpus no longer separates global from local statistics")
	}
	q = `SELECT VALUE c.id FROM c ORDER BY RANK FullTextScore(c.text, 'xenon', 'yttrium')`
	if got, want := mustFTQuery(t, f.raw, "ft", "stats", q, "p1"), `["A","C","B"]`; got != want {
		t.Errorf("%s in p1\n got %s\nwant %s", q, got, want)
	}
}

// TestFullTextReferenceExamples runs the worked examples of the
// reference (search §A4.8, §A4.9: BM25 and weighted RRF over three
// documents, with the orders it derives by hand) and RRF with a vector
// and a full-text component, with TOP and OFFSET LIMIT on the fused list,
// cross-partition and in one partition.
func TestFullTextReferenceExamples(t *testing.T) {
	f := newFixture(t)
	mustDB(t, f.c, "ft")
	ftContainer(t, f.raw, "ft", "bikes", "",
		`{"id":"a","pk":"x","text":"red mountain bike","title":"red bike","v":[1,0]}`,
		`{"id":"b","pk":"y","text":"bike bike repair shop","title":"blue bike","v":[0,1]}`,
		`{"id":"c","pk":"x","text":"blue car","title":"red car","v":[0.9,0.1]}`)
	tests := []struct {
		name, query, pk, want string
	}{
		// §A4.8: b 0.5909, a 0.4700, c 0
		{"A4.8", `SELECT TOP 10 c.id FROM c ORDER BY RANK FullTextScore(c.text, "bike")`, "", `[{"id":"b"},{"id":"a"},{"id":"c"}]`},
		// §A4.9: dense ranks text b1 a2 c3, title a1 c1 b2; weights 2, 1:
		// b 2/61+1/62, a 2/62+1/61, c 2/63+1/61
		{"A4.9 weighted", `SELECT TOP 10 c.id FROM c ORDER BY RANK RRF(FullTextScore(c.text, "bike"), FullTextScore(c.title, "red"), [2, 1])`, "", `[{"id":"b"},{"id":"a"},{"id":"c"}]`},
		// unweighted a and b tie (0.032522) and keep insertion order
		{"A4.9 unweighted", `SELECT TOP 10 c.id FROM c ORDER BY RANK RRF(FullTextScore(c.text, "bike"), FullTextScore(c.title, "red"))`, "", `[{"id":"a"},{"id":"b"},{"id":"c"}]`},
		// negative weights reverse both components (ascending, weights 2
		// and 1): text c1 a2 b3, title b1 a2 c2: c 2/61+1/62, a 2/62+1/62,
		// b 2/63+1/61 (reference §1.1 test 12 reverses the same way)
		{"A4.9 reversed", `SELECT TOP 10 c.id FROM c ORDER BY RANK RRF(FullTextScore(c.text, "bike"), FullTextScore(c.title, "red"), [-2, -1])`, "", `[{"id":"c"},{"id":"a"},{"id":"b"}]`},
		// the array term form and a term as parameter
		{"array terms", `SELECT VALUE c.id FROM c ORDER BY RANK FullTextScore(c.text, ["bike"])`, "", `["b","a","c"]`},
		// vector (cosine to [1,0]: a 1, c 0.994, b 0 -> a1 c2 b3) with
		// text "bike" (b1 a2 c3): a 1/61+1/62, b 1/63+1/61, c 1/62+1/63
		{"vector and text", `SELECT VALUE c.id FROM c ORDER BY RANK RRF(VectorDistance(c.v, [1, 0]), FullTextScore(c.text, "bike"))`, "", `["a","b","c"]`},
		{"vector and text TOP 2", `SELECT TOP 2 VALUE c.id FROM c ORDER BY RANK RRF(VectorDistance(c.v, [1, 0]), FullTextScore(c.text, "bike"))`, "", `["a","b"]`},
		{"vector and text OFFSET 1 LIMIT 1", `SELECT VALUE c.id FROM c ORDER BY RANK RRF(VectorDistance(c.v, [1, 0]), FullTextScore(c.text, "bike")) OFFSET 1 LIMIT 1`, "", `["b"]`},
		// the WHERE clause picks the candidates, the statistics stay the
		// container's
		{"WHERE", `SELECT VALUE c.id FROM c WHERE FullTextContains(c.title, "red") ORDER BY RANK FullTextScore(c.text, "bike")`, "", `["a","c"]`},
		{"one partition", `SELECT VALUE c.id FROM c ORDER BY RANK FullTextScore(c.text, "bike")`, "x", `["a","c"]`},
		{"SELECT *", `SELECT * FROM c ORDER BY RANK FullTextScore(c.text, "repair")`, "y", `[{"id":"b"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mustFTQuery(t, f.raw, "ft", "bikes", tt.query, tt.pk)
			if tt.name == "SELECT *" {
				var docs []map[string]any
				_ = json.Unmarshal([]byte(got), &docs)
				if len(docs) != 1 || docs[0]["id"] != "b" || docs[0]["_rid"] == nil || docs[0]["_etag"] == nil {
					t.Errorf("%s: %s, want the whole document b", tt.query, got)
				}
				return
			}
			if got != tt.want {
				t.Errorf("%s\n got %s\nwant %s", tt.query, got, tt.want)
			}
		})
	}
	t.Run("parameter terms and weights", func(t *testing.T) {
		q := `SELECT VALUE c.id FROM c ORDER BY RANK RRF(FullTextScore(c.text, @t), FullTextScore(c.title, @u), @w)`
		got := mustFTQuery(t, f.raw, "ft", "bikes", q, "", map[string]any{"name": "@t", "value": "bike"},
			map[string]any{"name": "@u", "value": "red"}, map[string]any{"name": "@w", "value": []float64{2, 1}})
		if want := `["b","a","c"]`; got != want {
			t.Errorf("%s\n got %s\nwant %s", q, got, want)
		}
	})
}

// TestFullTextRefusals: the placements the service refuses, with its
// codes and texts (reference search §A2), as 400s; a query that was
// refused before (ORDER BY RANK) is now served, so each case also proves
// the refusal is the placement's.
func TestFullTextRefusals(t *testing.T) {
	f := newFixture(t)
	mustDB(t, f.c, "ft")
	ftContainer(t, f.raw, "ft", "r", "", foxCorpus...)
	tests := []struct{ query, code, msg string }{
		{`SELECT * FROM c WHERE FullTextScore(c.text, 'fox') > 0`, "SC2240", "The FullTextScore function is only allowed in the ORDER BY RANK clause."},
		{`SELECT FullTextScore(c.text, 'fox') AS s FROM c`, "SC2240", "The FullTextScore function is only allowed in the ORDER BY RANK clause."},
		{`SELECT c.id FROM c ORDER BY RANK RRF(FullTextScore(c.text, 'fox'))`, "SC2221", "The ORDER BY RANK clause must be followed by a VectorDistance and/or a FullTextScore function call."},
		{`SELECT c.id FROM c ORDER BY RANK c.text`, "SC2221", "The ORDER BY RANK clause must be followed by a VectorDistance and/or a FullTextScore function call."},
		{`SELECT VALUE RRF(FullTextScore(c.text, 'a'), FullTextScore(c.text, 'b')) FROM c`, "SC2005", "'RRF' is not a recognized built-in function name."},
	}
	for _, tt := range tests {
		t.Run(tt.code+" "+tt.query, func(t *testing.T) {
			_, resp := ftQuery(t, f.raw, "ft", "r", tt.query, "a")
			if resp == nil {
				t.Fatalf("%s: answered, want 400 %s", tt.query, tt.code)
			}
			msg := wantError(t, *resp, http.StatusBadRequest, "BadRequest")
			if !strings.Contains(msg, `"code":"`+tt.code+`"`) || !strings.Contains(msg, tt.msg) {
				t.Errorf("%s: message %s, want code %s and %q", tt.query, msg, tt.code, tt.msg)
			}
		})
	}
}

// TestFullTextPolicyLanguage: the container's fullTextPolicy picks the
// language a path is processed in: German stemming joins "Häuser" and
// "Haus" under de-DE; under the default (en-US) they stay apart.
func TestFullTextPolicyLanguage(t *testing.T) {
	e := emulatortest.Start(t)
	raw := newRaw(t, e)
	mustDB(t, e.Client(t), "ft")
	items := []string{`{"id":"1","pk":"p","de":"Die Häuser der Stadt","en":"Die Häuser der Stadt"}`}
	ftContainer(t, raw, "ft", "lang", `,"fullTextPolicy":{"defaultLanguage":"en-US","fullTextPaths":[{"path":"/de","language":"de-DE"},{"path":"/en","language":"en-US"}]}`, items...)
	for _, tt := range []struct{ query, want string }{
		{`SELECT VALUE FullTextContains(c.de, "Haus") FROM c`, `[true]`},
		{`SELECT VALUE FullTextContains(c.en, "Haus") FROM c`, `[false]`},
	} {
		if got := mustFTQuery(t, raw, "ft", "lang", tt.query, "p"); got != tt.want {
			t.Errorf("%s\n got %s\nwant %s", tt.query, got, tt.want)
		}
	}
}
