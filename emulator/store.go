package emulator

import (
	"context"
	"encoding/json"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/cosmosql"
)

// Store persists databases, containers, offers and items. pgstore implements
// it over PostgreSQL, and it is the only implementation: every method is
// required (no optional interfaces the service probes for). Every method
// is safe for concurrent use.
//
// References (dbRef, collRef) are ids, or RIDs for RID-based addressing;
// an id wins over a RID when both match. Missing resources yield errors of
// KindNotFound (ErrResourceNotFound for databases and containers,
// ErrItemNotFound for items); duplicates KindConflict; failed If-Match
// checks KindPreconditionFailed. Item methods treat an expired item
// (Expiry) exactly like a missing one.
type Store interface {
	CreateDatabase(ctx context.Context, p CreateDatabaseParams) (Database, error)
	GetDatabase(ctx context.Context, dbRef string) (Database, error)
	ListDatabases(ctx context.Context) ([]Database, error)
	// DeleteDatabase deletes the database and everything inside it.
	DeleteDatabase(ctx context.Context, dbRef string) error

	CreateContainer(ctx context.Context, p CreateContainerParams) (Container, error)
	GetContainer(ctx context.Context, dbRef, collRef string) (Container, error)
	// ListContainers returns the database and its containers.
	ListContainers(ctx context.Context, dbRef string) (Database, []Container, error)
	ReplaceContainer(ctx context.Context, p ReplaceContainerParams) (Container, error)
	// DeleteContainer deletes the container, its items and its offer.
	DeleteContainer(ctx context.Context, dbRef, collRef string) error

	ListOffers(ctx context.Context) ([]Offer, error)
	GetOffer(ctx context.Context, rid string) (Offer, error)
	ReplaceOffer(ctx context.Context, p ReplaceOfferParams) (Offer, error)

	UserStore       // users and permissions (emulator/users.go)
	ItemStore       // the item point operations (emulator/batch.go)
	ScriptStore     // stored procedures, triggers, UDFs (emulator/scripts.go)
	ChangeFeedStore // the latest-version change feed (emulator/changefeed.go)
	ChangeLog       // the all-versions-and-deletes change feed (emulator/changefeed_full.go)

	// InItemTx runs fn with an ItemTx whose operations all run in one
	// transaction (transactional batches). It commits when fn returns
	// nil, and rolls back and returns fn's error otherwise. A failed
	// operation (ErrConflict, ErrItemNotFound, ErrPrecondition) leaves the
	// transaction usable. The store may roll the transaction back and run
	// fn again (after removing an obstacle of its own, such as an index
	// that refused a long value): fn must start afresh on every call.
	InItemTx(ctx context.Context, opts TxOptions, fn func(ItemTx) error) error
	// InScriptTx runs fn with a ScriptTx whose operations all run in one
	// transaction, their writes sharing one LSN (stored procedures and
	// triggers). It commits when fn returns nil, and rolls back and
	// returns fn's error otherwise. As with InItemTx, the store may roll
	// back and run fn again: fn must start afresh on every call.
	InScriptTx(ctx context.Context, fn func(ScriptTx) error) error
	// DeletePartitionItems deletes at most limit stored items (live or
	// expired) of the logical partition pk (canonical) of c and returns
	// how many it deleted (a logical partition is deleted in such bounded
	// steps).
	DeletePartitionItems(ctx context.Context, c Container, pk string, limit int) (int64, error)
	// SplitRanges applies the splits p.Plan returns atomically: each
	// parent's row is kept with status RangeStatusSplit (its id is never
	// reused), its children are stored live, NextRangeID moves past them
	// and RangesVersion increases by one (when anything was split). It
	// returns the container afterwards, as GetContainer would.
	SplitRanges(ctx context.Context, p SplitRangesParams) (Container, error)
	// CurrentLSN returns the latest log sequence number issued. LSNs are
	// drawn from one sequence for every container, so the latest is an
	// upper bound of any LSN a client has seen.
	CurrentLSN(ctx context.Context) (int64, error)
	// ResetAll removes every database with everything in it (containers,
	// items, scripts, users, permissions, offers, partition key ranges,
	// change feeds) as one atomic step, faster than deleting them one by
	// one: a concurrent request sees all of it or none of it, and one
	// that addresses a removed resource after the step fails as it would
	// after a delete (404, or 410 for a partition key range). Resources
	// created again afterwards with the same ids are new ones (new RIDs,
	// empty change feeds), so nothing a client cached about the old ones
	// applies to them. It returns how many databases it removed.
	ResetAll(ctx context.Context) (int, error)
	// ContainerUsage returns container c's usage, its items judged live
	// under e, at a cost that does not grow with the container.
	ContainerUsage(ctx context.Context, c Container, e Expiry) (ContainerUsage, error)

	// ReadItems returns live items in creation order (Seq), after
	// p.AfterSeq, at most p.Limit of them.
	ReadItems(ctx context.Context, p ReadItemsParams) ([]Item, error)
	// ContainerStats counts, for every container, stored rows and live
	// items as of unix time now.
	ContainerStats(ctx context.Context, now int64) ([]ContainerStats, error)

	// QueryItems runs one page of a Cosmos SQL query over live items. A
	// query it cannot translate is a KindBadRequest error saying so; a
	// continuation token that does not belong to the query is 400
	// "Invalid Continuation Token".
	QueryItems(ctx context.Context, p QueryItemsParams) (QueryPage, error)
	// QueryDocuments runs one page of a query over the given rendered
	// resources (databases, containers, offers) with the same engine;
	// p.Container and p.Expiry are unused.
	QueryDocuments(ctx context.Context, docs [][]byte, p QueryItemsParams) (QueryPage, error)
}

// Expiry is what decides whether an item is live: the time of the operation
// and the container's current defaultTtl. An item is expired when the
// container's TTL is on and now >= _ts + effective ttl, where the effective
// ttl is the item's ttl if present, else the container's defaultTtl, and -1
// means never.
type Expiry struct {
	Now        int64  // unix seconds, from the Clock
	DefaultTTL *int32 // nil: TTL off, nothing expires
}

// Live reports whether an item written at ts with item ttl itemTTL (nil when
// absent) is live under e. It is the Go twin of the store's SQL predicate.
func (e Expiry) Live(ts int64, itemTTL *int32) bool {
	if e.DefaultTTL == nil {
		return true
	}
	eff := *e.DefaultTTL
	if itemTTL != nil {
		eff = *itemTTL
	}
	return eff == -1 || e.Now < ts+int64(eff)
}

// NewOffer describes the throughput to provision with a new database or
// container.
type NewOffer struct {
	Content []byte // the offer's content member, JSON
}

// CreateDatabaseParams are the inputs of Store.CreateDatabase.
type CreateDatabaseParams struct {
	ID    string
	TS    int64
	ETag  string
	Offer *NewOffer
}

// CreateContainerParams are the inputs of Store.CreateContainer.
type CreateContainerParams struct {
	DatabaseRef string
	ID          string
	Properties  []byte
	// Definition is Properties parsed (ParseContainerDefinition); nil
	// makes the store parse it.
	Definition   *ContainerDefinition
	PartitionKey PartitionKeyDefinition
	DefaultTTL   *int32
	TS           int64
	ETag         string
	// Offer is the container's own throughput; nil when none was asked for.
	Offer *NewOffer
	// DefaultOffer is provisioned instead when Offer is nil and the
	// database has no shared throughput (the service gives every such
	// container 400 RU/s); nil provisions nothing.
	DefaultOffer *NewOffer
	// Ranges are the container's partition key ranges (InitialRanges),
	// ids "0" .. n-1; empty means the one range "0".
	Ranges []PartitionKeyRange
}

// ReplaceContainerParams are the inputs of Store.ReplaceContainer. Check is
// called inside the store's transaction with the current container and may
// veto the replace (immutable partition key, unique keys, If-Match).
type ReplaceContainerParams struct {
	DatabaseRef string
	CollRef     string
	Properties  []byte
	// Definition is Properties parsed (ParseContainerDefinition); nil
	// makes the store parse it.
	Definition *ContainerDefinition
	DefaultTTL *int32
	TS         int64
	ETag       string
	Check      func(current Container) error
}

// ReplaceOfferParams are the inputs of Store.ReplaceOffer.
type ReplaceOfferParams struct {
	RID     string
	Content []byte
	TS      int64
	ETag    string
}

// ItemKey identifies an item in a container at a moment in time.
type ItemKey struct {
	Container Container
	PK        string // canonical partition key
	ID        string
	Expiry    Expiry
}

// WriteItemParams are the inputs of the item write methods.
type WriteItemParams struct {
	ItemKey
	Body []byte // compact JSON without system properties
	// TTL is the item's own ttl property (nil when absent).
	TTL     *int32
	TS      int64
	ETag    string
	IfMatch string // "" for none
	// NewID, for a replace, is the id the body gives the item when it is
	// not ID: the service renames the item (it keeps its _rid; a live item
	// that already has that id is a conflict). "" keeps the id.
	NewID string
}

// ReadItemsParams are the inputs of Store.ReadItems.
type ReadItemsParams struct {
	Container Container
	PK        *string // nil: all partitions
	// EPK, when set, keeps only the items whose effective partition key
	// lies in it (a partition key range, or a sub-range of one).
	EPK      *EPKRange
	AfterSeq int64
	Limit    int
	Expiry   Expiry
}

// ContainerStats describes what a container holds.
type ContainerStats struct {
	Database   string `json:"database"`
	Container  string `json:"container"`
	StoredRows int64  `json:"storedRows"` // rows in storage, expired ones not yet swept included
	LiveItems  int64  `json:"liveItems"`  // items a client can see
	LiveBytes  int64  `json:"liveBytes"`  // their total document size
}

// QueryItemsParams are the inputs of Store.QueryItems.
type QueryItemsParams struct {
	Container Container
	Expiry    Expiry
	// PK restricts the query to one logical partition (canonical key);
	// nil runs it over the whole container.
	PK *string
	// PKPrefix says that PK is a hierarchical key's prefix
	// (PartitionKey.CanonicalPrefix): the query reads every partition
	// whose key starts with it.
	PKPrefix bool
	// EPK, when set, confines the query to the items whose effective
	// partition key lies in it (a partition key range, or a sub-range of
	// one).
	EPK *EPKRange
	// Query is the parsed query and Text its source (continuation tokens
	// are bound to it).
	Query *cosmosql.Query
	Text  string
	// Params are the parameter values by name; a nil value is undefined.
	Params map[string]json.RawMessage
	Page   PageRequest
	// GatewayFanOut says the gateway itself serves a cross-partition query
	// (no partition key, no range id): as the service's gateway, which
	// fans out over partitions, a full page then carries a continuation
	// even when no result follows (the Go SDK's tests pin that trailing
	// empty page). Otherwise the last page carries none. The service runs
	// such a query one EPK span at a time (see emulator/fanout.go), so the
	// rule applies within the span it is given.
	GatewayFanOut bool
	// Now is the emulator time of the query (GetCurrentDateTime and
	// friends); zero means the database's clock.
	Now time.Time
	// UDFs calls the user-defined functions the query names; nil when it
	// names none (or where UDFs are not available, such as inside
	// scripts: such a query is refused as unsupported).
	UDFs UDFCaller
}

// UDFCaller calls the user-defined functions of one query.
type UDFCaller interface {
	// CallUDF calls the function id with args, each the JSON text of one
	// argument, and returns the JSON text of its result, nil when it is
	// undefined. Its errors are the service's: 400 for a function that
	// throws, 408 past the time limit.
	CallUDF(id string, args [][]byte) ([]byte, error)
}

// QueryPage is one page of query results.
type QueryPage struct {
	Docs         [][]byte // each a JSON value
	Continuation string   // "" on the last page
}
