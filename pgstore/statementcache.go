package pgstore

import (
	"context"
	"slices"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
	"github.com/cosmos-emulator/cosmos-emulator/internal/lru"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/sqlgen"
)

// The statement cache keeps the translated statements of query pages, so
// that a query sent again (the same text, parameters, partition scope and
// page) over the same container definition is not translated again. It is
// exact: its key holds every input of the translation but the two that
// change from request to request, the expiry time (the leading bind
// arguments of the live predicate, replaced on every hit) and the
// emulator time of GetCurrentDateTime and friends (a statement that binds
// it, sqlgen.Statement.UsesNow, is not kept). The container definition is
// part of the key by identity: the store parses a new one whenever a container is
// created, replaced or loaded again after any metadata change (cache.go),
// so a replaced container's statements are never served (the entry keeps
// its definition alive, so its address cannot be reused). Statements of
// scripts' queries (which run on their transaction), of scan windows and
// of queries calling user-defined functions are not kept.

// Bounds of the statement cache: entries, and the largest key (query
// text, parameters, continuation) and SQL text it keeps. At most about
// statementCacheSize * (maxStatementKey + maxCachedSQL) bytes.
const (
	statementCacheSize = 256
	maxStatementKey    = 8 << 10
	maxCachedSQL       = 32 << 10
)

// statementKey is a statement cache key: the container definition and the
// other inputs of the translation (statementInputs).
type statementKey struct {
	def    *emulator.ContainerDefinition
	inputs string
}

// cachedStatement is one statement cache entry.
type cachedStatement struct {
	liveArgs int // how many leading arguments are the live predicate's
	st       *sqlgen.Statement
}

func newStatementCache() *lru.Cache[statementKey, cachedStatement] {
	return lru.New[statementKey, cachedStatement](statementCacheSize)
}

// translateCached is translateQuery served from the statement cache (see
// above) when it holds the page's statement.
func (s *Store) translateCached(ctx context.Context, p emulator.QueryItemsParams, cur *sqlgen.Cursor) (*sqlgen.Statement, error) {
	def := p.Container.Definition()
	a := args{}
	live := livePredicate(p.Expiry, "r.", &a)
	inputs, ok := statementInputs(p, live)
	key := statementKey{def: def, inputs: inputs}
	if ok {
		if e, hit := s.statements.Get(key); hit && e.liveArgs == len(a) {
			st := *e.st
			st.Args = slices.Clone(e.st.Args)
			copy(st.Args, a)
			return &st, nil
		}
	}
	st, err := s.translateQuery(ctx, p, cur)
	if err == nil && ok && !st.UsesNow && len(st.SQL) <= maxCachedSQL && len(st.Args) >= len(a) {
		s.statements.Put(key, cachedStatement{liveArgs: len(a), st: st})
	}
	return st, err
}

// statementInputs is the statement cache key, but for the container
// definition, of the translation of a page of p whose live predicate is
// live; false when it is too long to keep.
func statementInputs(p emulator.QueryItemsParams, live string) (string, bool) {
	n := len(p.Text) + len(p.Page.Continuation) + len(live) + len(p.Container.RID) + 64
	for name, v := range p.Params {
		n += len(name) + len(v) + 16
	}
	if p.PK != nil {
		n += len(*p.PK)
	}
	if n > maxStatementKey {
		return "", false
	}
	var k emulator.CacheKey
	k.Grow(n)
	k.Int(p.Container.Num)
	k.Field(p.Container.RID)
	k.Field(p.Text)
	k.Params(p.Params)
	k.Optional(p.PK)
	k.Flag(p.PKPrefix)
	epkMin, epkMax := epkBounds(p.EPK)
	k.Optional(epkMin)
	k.Optional(epkMax)
	k.Int(int64(p.Page.Limit()))
	k.Field(p.Page.Continuation)
	k.Field(live)
	return k.String(), true
}
