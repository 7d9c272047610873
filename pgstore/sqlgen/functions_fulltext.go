package sqlgen

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/cosmosql"
)

// Full-text functions over PostgreSQL's text search (migration 0028):
// FULLTEXTCONTAINS, FULLTEXTCONTAINSALL and FULLTEXTCONTAINSANY match
// tokens, not substrings: the field and the terms are tokenized,
// lower-cased, stemmed and stripped of stop words by the text search
// configuration of the field's language (FullTextConfig), and a term is
// contained when one of its tokens is a token of the field ("fox" matches
// "Foxes", not "firefox"; "United States" matches "United Kingdom", as on
// the service: migration 0031). FULLTEXTSCORE is only allowed in ORDER
// BY RANK (the parser refuses it elsewhere) and is translated by rank.go.

// DefaultFullTextConfig is the text search configuration of a field that
// no fullTextPolicy path declares (the service's default language is
// en-US).
const DefaultFullTextConfig = "pg_catalog.english"

// FullTextConfig returns the PostgreSQL text search configuration for a
// fullTextPolicy language ("en-US", and the preview languages de-DE,
// es-ES, fr-FR, it-IT, pt-PT, pt-BR, in any case); other codes get
// DefaultFullTextConfig (the service's answer to them is not recorded).
func FullTextConfig(language string) string {
	switch strings.ToLower(language) {
	case "de-de":
		return "pg_catalog.german"
	case "es-es":
		return "pg_catalog.spanish"
	case "fr-fr":
		return "pg_catalog.french"
	case "it-it":
		return "pg_catalog.italian"
	case "pt-pt", "pt-br":
		return "pg_catalog.portuguese"
	}
	return DefaultFullTextConfig
}

// FullTextPathConfig returns the text search configuration of the
// document path: its entry in configs (paths "/a/b" of the container's
// fullTextPolicy, as Input.FullTextConfigs), else def (the policy's
// default language), else DefaultFullTextConfig. The query translator and
// the full-text index DDL both use it, so that the two agree.
func FullTextPathConfig(configs map[string]string, def string, path []string) string {
	cfg := def
	if c, ok := configs["/"+strings.Join(path, "/")]; ok {
		cfg = c
	}
	if cfg == "" {
		cfg = DefaultFullTextConfig
	}
	return cfg
}

// fullTextConfig is the bound configuration (a regconfig) for the field
// expression e: the container's language for its path, else the default.
func (t *translator) fullTextConfig(e cosmosql.Expr) string {
	var cfg string
	if path, ok := t.rootPath(e); ok {
		cfg = FullTextPathConfig(t.in.FullTextConfigs, t.in.FullTextDefault, path)
	} else {
		cfg = FullTextPathConfig(nil, t.in.FullTextDefault, nil)
	}
	return t.bind(cfg) + "::regconfig"
}

// configLiteral is the SQL constant of a configuration FullTextConfig
// returns ('pg_catalog.english'::regconfig), false for any other string.
// An index expression needs the configuration as a constant (a bound one
// is not known when the plan is made, and a text-to-regconfig cast is
// not immutable); only the fixed names of FullTextConfig are ever written,
// never text from a request.
func configLiteral(cfg string) (string, bool) {
	switch cfg {
	case DefaultFullTextConfig, "pg_catalog.german", "pg_catalog.spanish", "pg_catalog.french", "pg_catalog.italian", "pg_catalog.portuguese":
		return "'" + cfg + "'::regconfig", true
	}
	return "", false
}

// FullTextIndexExpr is the processed text of the document path under the
// configuration cfg (one FullTextConfig returns), over the jsonb column
// col ("doc" in the GIN index of a full-text index path, "r.doc" in
// queries: the same structure, which is what PostgreSQL matches index
// expressions by); ok is false for a configuration FullTextConfig never
// returns.
func FullTextIndexExpr(col, cfg string, path []string) (expr string, ok bool) {
	lit, ok := configLiteral(cfg)
	if !ok {
		return "", false
	}
	return "cosmos.fts_vector(" + lit + ", " + PathExpr(col, path) + ")", true
}

// fullTextConjunct returns, for a top-level WHERE term that is a
// FULLTEXTCONTAINS, FULLTEXTCONTAINSALL or FULLTEXTCONTAINSANY call on a
// path of the container's fullTextIndexes (Input.FullTextIndexed) with
// string constants for terms, the conjunct its GIN index answers:
// `<FullTextIndexExpr> @@ cosmos.fts_query(cfg, terms, all)` (migration
// 0030), which every document the call is true for satisfies (the call
// itself stays in the statement, so results are unchanged). A path
// without such an index gets none: there the conjunct would only compute
// each document's processed text a second time.
func (t *translator) fullTextConjunct(c *cosmosql.Call) (string, bool) {
	var all bool
	switch strings.ToUpper(c.Name) {
	case "FULLTEXTCONTAINS", "FULLTEXTCONTAINSALL":
		all = true
	case "FULLTEXTCONTAINSANY":
	default:
		return "", false
	}
	if c.UDF || len(c.Args) < 2 {
		return "", false
	}
	path, ok := t.rootPath(c.Args[0])
	if !ok || !t.in.FullTextIndexed["/"+strings.Join(path, "/")] {
		return "", false
	}
	cfg := FullTextPathConfig(t.in.FullTextConfigs, t.in.FullTextDefault, path)
	vec, ok := FullTextIndexExpr("r.doc", cfg, path)
	if !ok {
		return "", false
	}
	terms := make([]string, 0, len(c.Args)-1)
	for _, a := range c.Args[1:] {
		raw, rank, ok := t.constJSON(a)
		var s string
		if !ok || rank != 4 || json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		terms = append(terms, s)
	}
	lit, _ := configLiteral(cfg)
	return vec + " @@ cosmos.fts_query(" + lit + ", " + t.bind(terms) + "::text[], " + strconv.FormatBool(all) + ")", true
}

// fullTextMatch translates FULLTEXTCONTAINS (all, one term),
// FULLTEXTCONTAINSALL (all) and FULLTEXTCONTAINSANY: undefined when the
// field or a term is not a string. The preview fuzzy form ({"term": ...,
// "distance": ...}) is refused rather than answered as a plain miss.
func fullTextMatch(all bool) astFn {
	return astFn{2, -1, func(t *translator, x []cosmosql.Expr) (string, error) {
		for _, term := range x[1:] {
			if o, ok := term.(*cosmosql.ObjectLit); ok {
				for _, f := range o.Fields {
					if strings.EqualFold(f.Key, "term") {
						return "", unsupported("a fuzzy full-text term")
					}
				}
			}
		}
		a, err := t.vals(x)
		if err != nil {
			return "", err
		}
		want := "false"
		if all {
			want = "true"
		}
		return "cosmos.fts_match(" + t.fullTextConfig(x[0]) + ", " + a[0] + ", ARRAY[" + strings.Join(a[1:], ", ") + "]::jsonb[], " + want + ")", nil
	}}
}

// plainFullTextMatch is the form used where only translated arguments
// are seen (over groups): the default configuration.
func plainFullTextMatch(all bool) fn {
	return fn{2, -1, func(t *translator, a []string) string {
		want := "false"
		if all {
			want = "true"
		}
		cfg := t.in.FullTextDefault
		if cfg == "" {
			cfg = DefaultFullTextConfig
		}
		return "cosmos.fts_match(" + t.bind(cfg) + "::regconfig, " + a[0] + ", ARRAY[" + strings.Join(a[1:], ", ") + "]::jsonb[], " + want + ")"
	}}
}

func init() {
	register(map[string]fn{
		"FULLTEXTCONTAINS":    plainFullTextMatch(true),
		"FULLTEXTCONTAINSALL": plainFullTextMatch(true),
		"FULLTEXTCONTAINSANY": plainFullTextMatch(false),
	})
	contains := fullTextMatch(true)
	contains.max = 2
	astFunctions["FULLTEXTCONTAINS"] = contains
	astFunctions["FULLTEXTCONTAINSALL"] = fullTextMatch(true)
	astFunctions["FULLTEXTCONTAINSANY"] = fullTextMatch(false)
}

// The gateway's internal scoring functions, which the component and
// statistics queries of its hybrid search plan call (emulator/hybridplan.go;
// reference search §A4.3, §A4.5) once an SDK has put the container-wide
// statistics in place of their placeholders:
//
//   - _FULLTEXTSCORE(path, [terms], n, total, [hits]) is FullTextScore's
//     BM25 score of the document for the terms (strings), over n
//     documents, total tokens of path and hits[i] documents holding
//     terms[i] (numbers): cosmos.fts_score, the function ORDER BY RANK
//     uses, so the fused ranking equals the one a single range serves.
//     Undefined when path is not a string or an argument has another type.
//   - _FULLTEXTWORDCOUNT(path) is the number of tokens of path (stop words
//     excluded), undefined when it is not a string.
//   - _VECTORSCORE(...) is VECTORDISTANCE(...).
func init() {
	astFunctions["_FULLTEXTSCORE"] = astFn{5, 5, func(t *translator, x []cosmosql.Expr) (string, error) {
		a, err := t.vals(x)
		if err != nil {
			return "", err
		}
		cfg := t.fullTextConfig(x[0])
		return "cosmos.fts_score_json(" + cfg + ", " + strings.Join(a, ", ") + ")", nil
	}}
	astFunctions["_FULLTEXTWORDCOUNT"] = astFn{1, 1, func(t *translator, x []cosmosql.Expr) (string, error) {
		v, err := t.val(x[0])
		if err != nil {
			return "", err
		}
		return "cosmos.fts_word_count(" + t.fullTextConfig(x[0]) + ", " + v + ")", nil
	}}
	astFunctions["_VECTORSCORE"] = astFn{2, 4, func(t *translator, x []cosmosql.Expr) (string, error) {
		return t.call(&cosmosql.Call{P: x[0].Position(), Name: "VECTORDISTANCE", Args: x})
	}}
}
