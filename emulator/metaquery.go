package emulator

import (
	"context"
	"encoding/json"
	"strings"
	"unicode"
)

// Query is a query request body: {"query": "...", "parameters": [...]}.
type Query struct {
	Text       string           `json:"query"`
	Parameters []QueryParameter `json:"parameters"`
}

// QueryParameter is one named parameter; a parameter without a value is
// undefined.
type QueryParameter struct {
	Name  string          `json:"name"`
	Value json.RawMessage `json:"value"`
}

// metaQuery is the small query form the SDKs send for databases, containers
// and offers: SELECT * FROM <alias> [WHERE <alias>.<prop> = <value> {AND
// ...}]. The full Cosmos SQL engine arrives with the query issue; until then
// anything else is refused with a 400 that says so, never answered wrongly.
type metaQuery struct {
	filters []metaFilter
}

type metaFilter struct {
	prop  string
	value any // decoded JSON
}

var errMetaQueryUnsupported = BadRequest("This emulator does not support this query on databases, containers or offers yet. Supported: SELECT * FROM <alias> [WHERE <alias>.<property> = <literal or @parameter> [AND ...]].")

// tokenizeMeta splits a query into identifiers, strings, numbers, parameters
// and punctuation.
func tokenizeMeta(s string) ([]string, bool) {
	var toks []string
	for i := 0; i < len(s); {
		c := rune(s[i])
		switch {
		case unicode.IsSpace(c):
			i++
		case c == '-' && i+1 < len(s) && s[i+1] == '-':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(s) && rune(s[j]) != c {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(s) {
				return nil, false
			}
			toks = append(toks, s[i:j+1])
			i = j + 1
		case c == '@' || c == '_' || unicode.IsLetter(c) || unicode.IsDigit(c) || c == '-' || c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			j := i + 1
			for j < len(s) && (s[j] == '_' || s[j] == '.' && c != '@' && unicode.IsDigit(c) || unicode.IsLetter(rune(s[j])) || unicode.IsDigit(rune(s[j]))) {
				j++
			}
			toks = append(toks, s[i:j])
			i = j
		case strings.ContainsRune("*=.[]", c):
			toks = append(toks, string(c))
			i++
		default:
			return nil, false
		}
	}
	return toks, true
}

// parseMetaQuery parses the supported query form with its parameters.
func parseMetaQuery(q Query) (*metaQuery, error) {
	toks, ok := tokenizeMeta(q.Text)
	if !ok || len(toks) < 4 || !strings.EqualFold(toks[0], "select") || toks[1] != "*" || !strings.EqualFold(toks[2], "from") {
		return nil, errMetaQueryUnsupported
	}
	alias := toks[3]
	rest := toks[4:]
	if len(rest) > 0 && strings.EqualFold(rest[0], "as") && len(rest) > 1 {
		alias, rest = rest[1], rest[2:]
	} else if len(rest) > 0 && !strings.EqualFold(rest[0], "where") {
		alias, rest = rest[0], rest[1:]
	}
	params := map[string]json.RawMessage{}
	for _, p := range q.Parameters {
		params[p.Name] = p.Value
	}
	mq := &metaQuery{}
	if len(rest) == 0 {
		return mq, nil
	}
	if !strings.EqualFold(rest[0], "where") {
		return nil, errMetaQueryUnsupported
	}
	rest = rest[1:]
	for {
		prop, n, ok := parseMetaRef(rest, alias)
		if !ok || len(rest) < n+2 || rest[n] != "=" {
			return nil, errMetaQueryUnsupported
		}
		val, ok := parseMetaValue(rest[n+1], params)
		if !ok {
			return nil, errMetaQueryUnsupported
		}
		mq.filters = append(mq.filters, metaFilter{prop: prop, value: val})
		rest = rest[n+2:]
		if len(rest) == 0 {
			return mq, nil
		}
		if !strings.EqualFold(rest[0], "and") {
			return nil, errMetaQueryUnsupported
		}
		rest = rest[1:]
	}
}

// parseMetaRef parses alias.prop or alias["prop"]; n is the tokens used.
func parseMetaRef(t []string, alias string) (string, int, bool) {
	if len(t) >= 3 && t[0] == alias && t[1] == "." {
		return t[2], 3, true
	}
	if len(t) >= 4 && t[0] == alias && t[1] == "[" && t[3] == "]" && len(t[2]) >= 2 && (t[2][0] == '"' || t[2][0] == '\'') {
		return t[2][1 : len(t[2])-1], 4, true
	}
	// a single token "alias.prop" (the tokenizer keeps dotted digits only)
	return "", 0, false
}

func parseMetaValue(tok string, params map[string]json.RawMessage) (any, bool) {
	switch {
	case strings.HasPrefix(tok, "@"):
		raw, ok := params[tok]
		if !ok || len(raw) == 0 {
			return nil, false
		}
		v, err := DecodeJSON(raw)
		return v, err == nil
	case tok[0] == '\'' || tok[0] == '"':
		inner := tok[1 : len(tok)-1]
		inner = strings.ReplaceAll(inner, `\'`, `'`)
		var s string
		if err := json.Unmarshal([]byte(`"`+strings.ReplaceAll(inner, `"`, `\"`)+`"`), &s); err != nil {
			return inner, true
		}
		return s, true
	case tok == "true":
		return true, true
	case tok == "false":
		return false, true
	case tok == "null":
		return nil, true
	default:
		v, err := DecodeJSON([]byte(tok))
		if _, isNum := v.(json.Number); err != nil || !isNum {
			return nil, false
		}
		return v, true
	}
}

// match reports whether a rendered resource satisfies every filter.
func (mq *metaQuery) match(resource []byte) bool {
	if len(mq.filters) == 0 {
		return true
	}
	v, err := DecodeJSON(resource)
	if err != nil {
		return false
	}
	obj, ok := v.(*Object)
	if !ok {
		return false
	}
	for _, f := range mq.filters {
		got, ok := obj.Get(f.prop)
		if !ok || !jsonEqual(got, f.value) {
			return false
		}
	}
	return true
}

// jsonEqual compares decoded JSON values with Cosmos equality: same type,
// numbers by value.
func jsonEqual(a, b any) bool {
	an, aok := a.(json.Number)
	bn, bok := b.(json.Number)
	if aok || bok {
		if !aok || !bok {
			return false
		}
		af, _ := an.Float64()
		bf, _ := bn.Float64()
		return af == bf
	}
	return string(EncodeJSON(a)) == string(EncodeJSON(b))
}

func filterRendered(q Query, rendered [][]byte) ([][]byte, error) {
	mq, err := parseMetaQuery(q)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, 0, len(rendered))
	for _, r := range rendered {
		if mq.match(r) {
			out = append(out, r)
		}
	}
	return out, nil
}

// QueryDatabases runs a database query and returns the matching databases,
// rendered.
func (s *Service) QueryDatabases(ctx context.Context, q Query) ([][]byte, error) {
	dbs, err := s.store.ListDatabases(ctx)
	if err != nil {
		return nil, err
	}
	rendered := make([][]byte, len(dbs))
	for i, d := range dbs {
		rendered[i] = d.JSON()
	}
	return filterRendered(q, rendered)
}

// QueryContainers runs a container query in a database.
func (s *Service) QueryContainers(ctx context.Context, dbRef string, q Query) (Database, [][]byte, error) {
	db, cs, err := s.store.ListContainers(ctx, dbRef)
	if err != nil {
		return Database{}, nil, err
	}
	rendered := make([][]byte, len(cs))
	for i, c := range cs {
		rendered[i] = c.JSON()
	}
	out, err := filterRendered(q, rendered)
	return db, out, err
}

// QueryOffers runs an offer query.
func (s *Service) QueryOffers(ctx context.Context, q Query) ([][]byte, error) {
	offers, err := s.store.ListOffers(ctx)
	if err != nil {
		return nil, err
	}
	rendered := make([][]byte, len(offers))
	for i, o := range offers {
		rendered[i] = o.JSON()
	}
	return filterRendered(q, rendered)
}
