package pgstore

import (
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/sqlgen"
)

// Full-text indexes. Each path of a container's
// indexingPolicy.fullTextIndexes gets a GIN index on its items table,
// items_<num>_f_<hash>, over sqlgen.FullTextIndexExpr: the processed text
// of the path under the configuration of its fullTextPolicy language (the
// one the query translator uses for it). The translator adds to a
// FullTextContains/All/Any filter on such a path a conjunct the index
// answers (sqlgen.Input.FullTextIndexed), so that the filter reads the
// matching documents instead of the whole container; the exact predicate
// stays, so results never depend on the index. Like composite indexes they
// follow the policy: made with the container, remade when a replace
// changes them, and dropped when a write stores a value whose processed
// text PostgreSQL cannot hold (over 1 MB, oversize.go), after which the
// filter scans again.

// fullTextIndex is one full-text index of a container.
type fullTextIndex struct {
	path []string
	cfg  string // text search configuration (sqlgen.FullTextConfig)
}

// fullTextIndexes returns the full-text indexes a container definition
// declares, in policy order, each path once, with the configuration of its
// language; paths this store cannot write into DDL are left out (they
// only go without an index).
func fullTextIndexes(d *emulator.ContainerDefinition) []fullTextIndex {
	if len(d.Indexing.FullTextIndexes) == 0 {
		return nil
	}
	configs, def := fullTextConfigs(d)
	seen := map[string]bool{}
	var out []fullTextIndex
	for _, ixPath := range d.Indexing.FullTextIndexes {
		path := emulator.SplitPath(ixPath)
		key := "/" + strings.Join(path, "/")
		if len(path) == 0 || seen[key] || !validIndexPath(path) {
			continue
		}
		seen[key] = true
		out = append(out, fullTextIndex{path: path, cfg: sqlgen.FullTextPathConfig(configs, def, path)})
	}
	return out
}

// fullTextIndexed returns the paths ("/a/b") of a container's full-text
// indexes (sqlgen.Input.FullTextIndexed), nil without any.
func fullTextIndexed(d *emulator.ContainerDefinition) map[string]bool {
	var m map[string]bool
	for _, ix := range fullTextIndexes(d) {
		if m == nil {
			m = map[string]bool{}
		}
		m["/"+strings.Join(ix.path, "/")] = true
	}
	return m
}

// fullTextIndexesDDL creates the GIN indexes of a container's full-text
// indexes and, with replace, first drops the ones the table has ("" when
// there is nothing to do). An index that a stored document's processed
// text is too large for is left out (tolerateLongValues): the filters on
// its path scan, with the same results.
func fullTextIndexesDDL(num int64, d *emulator.ContainerDefinition, replace bool) string {
	var b strings.Builder
	if replace {
		fmt.Fprintf(&b, `DO $$ DECLARE i text; BEGIN FOR i IN SELECT indexname FROM pg_indexes WHERE schemaname = 'cosmos' AND tablename = 'items_%d' AND indexname LIKE 'items\_%d\_f\_%%' LOOP EXECUTE 'DROP INDEX cosmos.' || quote_ident(i); END LOOP; END $$;`, num, num)
	}
	for _, ix := range fullTextIndexes(d) {
		expr, ok := sqlgen.FullTextIndexExpr("doc", ix.cfg, ix.path)
		if !ok {
			continue
		}
		h := fnv.New64a()
		h.Write([]byte(expr))
		b.WriteString("\n" + tolerateLongValues(fmt.Sprintf("CREATE INDEX items_%d_f_%016x ON %s USING gin ((%s));", num, h.Sum64(), itemsTable(num), expr)))
	}
	return b.String()
}

// sameFullTextIndexes reports whether two container definitions make the
// same full-text indexes (paths and configurations).
func sameFullTextIndexes(a, b *emulator.ContainerDefinition) bool {
	key := func(d *emulator.ContainerDefinition) string {
		var parts []string
		for _, ix := range fullTextIndexes(d) {
			parts = append(parts, ix.cfg+"\x00"+strings.Join(ix.path, "\x00"))
		}
		return strings.Join(parts, "\x01")
	}
	return key(a) == key(b)
}
