package pgstore

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/sqlgen"
)

// The default indexing policy of Cosmos DB indexes every path (/*). Here a
// path gets its index (see sqlgen/index.go: btree on the type rank and value
// of the path) the first time a query filters or sorts on it, unless the
// container's indexing policy excludes it or its indexing mode is none.
// A query across partitions makes the global index (type rank, value); a
// query confined to one logical partition makes the partition-first one
// (pk, type rank, value; partial, sqlgen.KeyedIndexPredicate), which
// reads only that partition's entries where the global one would read
// every partition's: its cost does not grow with the container. A path
// queried both ways has both.
// Creating it takes a moment on a large container, once; every later query
// on that path is served by the index. The number of such indexes per
// container (both kinds) is bounded so that writes stay cheap.

// maxAutoIndexes bounds the path indexes of one container.
const maxAutoIndexes = 32

// autoIndexes remembers which path indexes exist, per items table.
type autoIndexes struct {
	mu    sync.Mutex
	known map[int64]map[string]bool // container num -> index names
	// blocked holds, per container num, the path indexes a long value
	// refused (oversize.go): they are not made again.
	blocked map[int64]map[string]bool
}

func indexName(num int64, path []string) string {
	h := fnv.New64a()
	for _, p := range path {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return fmt.Sprintf("items_%d_p_%016x", num, h.Sum64())
}

// keyedIndexName is the name of the partition-first index of a path
// (indexName's hash, "_k_" for "_p_").
func keyedIndexName(num int64, path []string) string {
	n := indexName(num, path)
	i := strings.LastIndex(n, "_p_")
	return n[:i] + "_k_" + n[i+3:]
}

// pathIndexed applies the path rules of an indexing policy to a document
// path: the most specific matching included or excluded path wins.
func pathIndexed(p emulator.IndexingPolicy, path []string) bool {
	if strings.EqualFold(p.Mode, "none") {
		return false
	}
	best, include := -1, true
	try := func(pattern string, inc bool) {
		if pattern == emulator.LegacyRootPath {
			pattern = "/*" // the legacy root: everything
		}
		parts := emulator.SplitPath(pattern)
		if len(parts) == 0 {
			return
		}
		last := parts[len(parts)-1]
		prefix := parts[:len(parts)-1]
		switch last {
		case "*": // the path and everything below
			if len(prefix) > len(path) {
				return
			}
		case "?": // exactly this path
			if len(prefix) != len(path) {
				return
			}
		default:
			return
		}
		for i, s := range prefix {
			if s != path[i] {
				return
			}
		}
		if spec := len(prefix)*2 + boolInt(last == "?"); spec > best {
			best, include = spec, inc
		}
	}
	for _, ip := range p.IncludedPaths {
		try(ip, true)
	}
	for _, ep := range p.ExcludedPaths {
		try(ep, false)
	}
	return best >= 0 && include
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ensureIndexes creates the missing path indexes a query can use: with
// keyed the partition-first ones, else the global ones. The
// per-container set of known index names is only touched under the lock;
// the DDL runs outside it (concurrent creators of one index are fine:
// IF NOT EXISTS, and a lost race is a duplicate-name error we ignore).
// An index that a stored value is too long for is not made, and not
// tried again (blockIndex); the query goes on without it.
func (s *Store) ensureIndexes(ctx context.Context, c emulator.Container, pol emulator.IndexingPolicy, paths [][]string, keyed bool) error {
	if len(paths) == 0 {
		return nil
	}
	s.autoIdx.mu.Lock()
	_, ok := s.autoIdx.known[c.Num]
	s.autoIdx.mu.Unlock()
	if !ok {
		rows, err := s.pool.Query(ctx, `SELECT indexname FROM pg_indexes WHERE schemaname = 'cosmos' AND tablename = $1 AND (indexname LIKE '%\_p\_%' OR indexname LIKE '%\_k\_%')`, "items_"+strconv.FormatInt(c.Num, 10))
		if err != nil {
			return err
		}
		names, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		s.autoIdx.mu.Lock()
		if _, ok := s.autoIdx.known[c.Num]; !ok {
			known := make(map[string]bool, len(names))
			for _, n := range names {
				known[n] = true
			}
			s.autoIdx.known[c.Num] = known
		}
		s.autoIdx.mu.Unlock()
	}
	// pick the indexes to create, reserving their slots
	type todo struct {
		name string
		path []string
	}
	var create []todo
	s.autoIdx.mu.Lock()
	known := s.autoIdx.known[c.Num]
	for _, p := range paths {
		name := indexName(c.Num, p)
		if keyed {
			name = keyedIndexName(c.Num, p)
		}
		if known[name] || s.autoIdx.blocked[c.Num][name] || len(known) >= maxAutoIndexes || !pathIndexed(pol, p) || !validIndexPath(p) {
			continue
		}
		known[name] = true
		create = append(create, todo{name, p})
	}
	s.autoIdx.mu.Unlock()
	for i, t := range create {
		ddl := `CREATE INDEX IF NOT EXISTS ` + t.name + ` ON ` + itemsTable(c.Num)
		if keyed {
			ddl += ` (` + sqlgen.KeyedIndexKey("doc", t.path) + `) WHERE ` + sqlgen.KeyedIndexPredicate("pk")
		} else {
			rank, value := sqlgen.IndexKey("doc", t.path)
			ddl += ` ((` + rank + `), (` + value + `))`
		}
		_, err := s.pool.Exec(ctx, ddl)
		if _, long := isOversize(err); long {
			// a stored value too long for the index: the path goes
			// without (oversize.go); the query scans
			s.blockIndex(c.Num, t.name)
			continue
		}
		if err == nil && s.indexBlocked(c.Num, t.name) {
			// a write dropped it while it was being made: drop it again
			_, _ = s.pool.Exec(ctx, `DROP INDEX IF EXISTS cosmos.`+t.name)
			continue
		}
		var pe *pgconn.PgError
		if err != nil && !(errors.As(err, &pe) && (pe.Code == "42P07" || pe.Code == "23505")) {
			// not created: forget the reservations still pending
			s.autoIdx.mu.Lock()
			for _, u := range create[i:] {
				delete(s.autoIdx.known[c.Num], u.name)
			}
			s.autoIdx.mu.Unlock()
			return fmt.Errorf("pgstore: index %v: %w", t.path, err)
		}
	}
	if len(create) > 0 {
		s.analyzeNewIndexes(ctx, c.Num)
	}
	return nil
}

// analyzeNewIndexes analyzes container num's items table after expression
// indexes (path or composite) were added to it. A new expression index has
// no statistics until the table is analyzed, and autovacuum analyzes only
// after enough rows change: until then the planner guesses a range on the
// path matches a fraction of a percent of the rows and, on a large
// container, ANDs the path index into a single-partition query that the
// primary key serves alone (1,000,000 items: 100,000 index entries read
// for 10 results, 14-47 ms instead of 1). ANALYZE samples a bounded number
// of rows, so it costs far less than the CREATE INDEX before it. Its
// failure (the client gone) only leaves that to autovacuum.
func (s *Store) analyzeNewIndexes(ctx context.Context, num int64) {
	_, _ = s.pool.Exec(ctx, `ANALYZE `+itemsTable(num))
}

// indexBlocked reports whether container num's path index name is not
// to be made (blockIndex).
func (s *Store) indexBlocked(num int64, name string) bool {
	s.autoIdx.mu.Lock()
	defer s.autoIdx.mu.Unlock()
	return s.autoIdx.blocked[num][name]
}

// validIndexPath reports whether every segment of a path can be written
// into index DDL: valid UTF-8 (the connection's encoding) without NUL.
// The segments are quoted by sqlgen.QuoteLiteral, which is exact with
// standard_conforming_strings on (forced on every connection, see
// sessionSettings).
func validIndexPath(path []string) bool {
	for _, p := range path {
		if !utf8.ValidString(p) || strings.IndexByte(p, 0) >= 0 {
			return false
		}
	}
	return true
}

// composites returns an indexing policy's composite indexes.
func composites(p emulator.IndexingPolicy) []sqlgen.CompositeIndex {
	var out []sqlgen.CompositeIndex
	for _, ci := range p.CompositeIndexes {
		var c sqlgen.CompositeIndex
		for _, e := range ci {
			c = append(c, sqlgen.CompositePath{Path: emulator.SplitPath(e.Path), Desc: e.Descending})
		}
		if len(c) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// maxCompositePaths is the most paths a composite index may have here:
// each path takes two index columns and PostgreSQL allows 32.
const maxCompositePaths = 16

// compositeIndexesDDL creates the indexes of a container's composite
// indexes (each becomes one multi-column PostgreSQL index) and, with
// replace, first drops the ones the table has (a new table has none: ""
// when its policy has no composite index). A composite index this store
// cannot build (too many paths, a path that is not valid UTF-8 or holds
// NUL) is the request's fault (400), checked before any DDL. An index that
// a stored value is too long for is left out (tolerateLongValues).
func compositeIndexesDDL(num int64, d *emulator.ContainerDefinition, replace bool) (string, error) {
	cis := composites(d.Indexing)
	for _, ci := range cis {
		if len(ci) > maxCompositePaths {
			return "", emulator.BadRequest("A composite index can have at most %d paths here; this one has %d.", maxCompositePaths, len(ci))
		}
		for _, p := range ci {
			if !validIndexPath(p.Path) {
				return "", emulator.BadRequest("The composite index path %q is not valid.", "/"+strings.Join(p.Path, "/"))
			}
		}
	}
	var b strings.Builder
	if replace {
		// drop every composite index first: a replace may change them
		fmt.Fprintf(&b, `DO $$ DECLARE i text; BEGIN FOR i IN SELECT indexname FROM pg_indexes WHERE schemaname = 'cosmos' AND tablename = 'items_%d' AND indexname LIKE 'items\_%d\_c\_%%' LOOP EXECUTE 'DROP INDEX cosmos.' || quote_ident(i); END LOOP; END $$;`, num, num)
	}
	for _, ci := range cis {
		h := fnv.New64a()
		h.Write([]byte(sqlgen.CompositeIndexKey("doc", ci)))
		b.WriteString("\n" + tolerateLongValues(fmt.Sprintf("CREATE INDEX items_%d_c_%016x ON %s (%s);", num, h.Sum64(), itemsTable(num), sqlgen.CompositeIndexKey("doc", ci))))
	}
	return b.String(), nil
}

// tolerateLongValues wraps a CREATE INDEX of an items table in a block
// that leaves the index out when a stored value is too long for a btree
// entry (program_limit_exceeded): the container's queries keep their
// results without it (oversize.go), where failing would refuse the
// container replace that declared it. The block's dollar-quote tag is one
// the statement does not contain (the statement holds quoted path
// names).
func tolerateLongValues(ddl string) string {
	tag := "$ci$"
	for n := 0; strings.Contains(ddl, tag); n++ {
		tag = "$ci" + strconv.Itoa(n) + "$"
	}
	return "DO " + tag + " BEGIN " + ddl + " EXCEPTION WHEN program_limit_exceeded THEN NULL; END " + tag + ";"
}

// sameComposites reports whether two container definitions declare the
// same composite indexes.
func sameComposites(a, b *emulator.ContainerDefinition) bool {
	key := func(d *emulator.ContainerDefinition) string {
		var parts []string
		for _, ci := range composites(d.Indexing) {
			parts = append(parts, sqlgen.CompositeIndexKey("doc", ci))
		}
		return strings.Join(parts, ";")
	}
	return key(a) == key(b)
}
