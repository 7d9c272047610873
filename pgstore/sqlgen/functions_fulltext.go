package sqlgen

import (
	"strings"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/cosmosql"
)

// Full-text functions over PostgreSQL's text search (migration 0028):
// FULLTEXTCONTAINS, FULLTEXTCONTAINSALL and FULLTEXTCONTAINSANY match
// tokens, not substrings: the field and the terms are tokenized,
// lower-cased, stemmed and stripped of stop words by the text search
// configuration of the field's language (FullTextConfig), and a term is
// contained when each of its tokens is a token of the field ("fox"
// matches "Foxes", not "firefox"). FULLTEXTSCORE is only allowed in ORDER
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

// fullTextConfig is the bound configuration (a regconfig) for the field
// expression e: the container's language for its path, else the default.
func (t *translator) fullTextConfig(e cosmosql.Expr) string {
	cfg := t.in.FullTextDefault
	if path, ok := t.rootPath(e); ok {
		if c, ok := t.in.FullTextConfigs["/"+strings.Join(path, "/")]; ok {
			cfg = c
		}
	}
	if cfg == "" {
		cfg = DefaultFullTextConfig
	}
	return t.bind(cfg) + "::regconfig"
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
