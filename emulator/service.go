package emulator

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/cosmosql"
	"github.com/cosmos-emulator/cosmos-emulator/internal/lru"
)

// Service validates requests, stamps system properties and applies the
// Cosmos DB rules (partition keys, etags, TTL) on top of a Store. It is safe
// for concurrent use.
type Service struct {
	store Store
	clock *Clock
	js    scriptEngine // server-side JavaScript (emulator/sproc.go)
	// minRanges is the least number of partition key ranges a new
	// container gets (SetMinPartitionRanges).
	minRanges int
	// plans caches query plans (plancache.go).
	plans *lru.Cache[planKey, []byte]
}

// SetMinPartitionRanges makes every container created from now on have at
// least n partition key ranges (where its partition key allows several:
// Splittable), so that a test suite exercises the SDKs' multi-range code
// without provisioning large throughput. n <= 1 restores the service's
// rule alone (RangeCountFor). Call it before serving requests.
func (s *Service) SetMinPartitionRanges(n int) { s.minRanges = min(n, MaxPartitionRanges) }

// New returns a Service over store, reading time from clock (a nil clock
// means the wall clock).
func New(store Store, clock *Clock) *Service {
	if clock == nil {
		clock = NewClock(nil)
	}
	return &Service{store: store, clock: clock, plans: lru.New[planKey, []byte](planCacheSize)}
}

// Clock returns the service's clock.
func (s *Service) Clock() *Clock { return s.clock }

func (s *Service) now() int64 { return s.clock.Now().Unix() }

// MinThroughput is the least manual throughput, in RU/s, and what a
// container without throughput of its own gets in a database without shared
// throughput (reference §4).
const MinThroughput = 400

// Throughput is provisioned throughput requested when creating a database or
// container (x-ms-offer-throughput or x-ms-cosmos-offer-autopilot-settings).
type Throughput struct {
	Manual       int // RU/s; 0 when autoscale
	AutoscaleMax int // max RU/s; 0 when manual
	// AutoscaleIncrementPercent is the optional autoUpgradePolicy value.
	AutoscaleIncrementPercent int
}

func (t *Throughput) offer() (*NewOffer, error) {
	if t == nil {
		return nil, nil
	}
	content, err := t.content()
	if err != nil {
		return nil, err
	}
	return &NewOffer{Content: content}, nil
}

func (t *Throughput) content() ([]byte, error) {
	switch {
	case t.AutoscaleMax > 0:
		if t.AutoscaleMax < 1000 || t.AutoscaleMax%1000 != 0 {
			return nil, BadRequest("The autoscale max throughput %d is invalid. It must be a multiple of 1000 and at least 1000 RU/s.", t.AutoscaleMax)
		}
		settings := fmt.Sprintf(`{"maxThroughput":%d`, t.AutoscaleMax)
		if t.AutoscaleIncrementPercent > 0 {
			settings += fmt.Sprintf(`,"autoUpgradePolicy":{"throughputPolicy":{"incrementPercent":%d}}`, t.AutoscaleIncrementPercent)
		}
		settings += "}"
		return []byte(fmt.Sprintf(`{"offerThroughput":%d,"offerAutopilotSettings":%s,"offerMinimumThroughputParameters":{"maxThroughputEverProvisioned":%d,"maxConsumedStorageEverInKB":0}}`, t.AutoscaleMax/10, settings, t.AutoscaleMax)), nil
	default:
		if t.Manual < MinThroughput {
			return nil, BadRequest("The offer throughput value %d is invalid. The minimum throughput is %d RU/s.", t.Manual, MinThroughput)
		}
		return []byte(fmt.Sprintf(`{"offerThroughput":%d,"offerIsRUPerMinuteThroughputEnabled":false,"offerMinimumThroughputParameters":{"maxThroughputEverProvisioned":%d,"maxConsumedStorageEverInKB":0}}`, t.Manual, t.Manual)), nil
	}
}

// ---- databases

// CreateDatabase creates a database from a body such as {"id":"db1"}.
func (s *Service) CreateDatabase(ctx context.Context, body []byte, tp *Throughput) (Database, error) {
	obj, err := decodeObject(ctx, body)
	if err != nil {
		return Database{}, err
	}
	idv, _ := obj.Get("id")
	id, err := ValidateResourceName(idv)
	if err != nil {
		return Database{}, err
	}
	offer, err := tp.offer()
	if err != nil {
		return Database{}, err
	}
	ts := s.now()
	return s.store.CreateDatabase(ctx, CreateDatabaseParams{ID: id, TS: ts, ETag: NewETag(ts), Offer: offer})
}

// GetDatabase reads a database by id or RID.
func (s *Service) GetDatabase(ctx context.Context, ref string) (Database, error) {
	return s.store.GetDatabase(ctx, ref)
}

// DeleteDatabase deletes a database with its containers, items and offers.
func (s *Service) DeleteDatabase(ctx context.Context, ref string) error {
	return s.store.DeleteDatabase(ctx, ref)
}

// ---- containers

// containerSystemProperties are dropped from container bodies on write.
var containerSystemProperties = []string{"_rid", "_ts", "_self", "_etag", "_docs", "_sprocs", "_triggers", "_udfs", "_conflicts"}

// normalizeContainer validates a container body and fills in the service's
// defaults (indexing, conflict resolution and geospatial policies). It
// returns the partition key definition and the defaultTtl (nil: off).
func normalizeContainer(obj *Object) (PartitionKeyDefinition, *int32, error) {
	for _, p := range containerSystemProperties {
		obj.Delete(p)
	}
	def, err := parsePartitionKey(obj)
	if err != nil {
		return def, nil, err
	}
	ttl, err := ValidateDefaultTTL(obj)
	if err != nil {
		return def, nil, err
	}
	if v, ok := obj.Get("defaultTtl"); ok && v == nil {
		obj.Delete("defaultTtl")
	}
	ip, err := normalizeIndexingPolicy(obj, ttl != nil)
	if err != nil {
		return def, nil, err
	}
	if err := checkContainerPolicies(obj, ip); err != nil {
		return def, nil, err
	}
	if err := checkComputedProperties(obj); err != nil {
		return def, nil, err
	}
	if v, ok := obj.Get("conflictResolutionPolicy"); !ok || v == nil {
		crp := &Object{}
		crp.Set("mode", "LastWriterWins")
		crp.Set("conflictResolutionPath", "/_ts")
		crp.Set("conflictResolutionProcedure", "")
		obj.Set("conflictResolutionPolicy", crp)
	}
	if v, ok := obj.Get("geospatialConfig"); !ok || v == nil {
		geo := &Object{}
		geo.Set("type", "Geography")
		obj.Set("geospatialConfig", geo)
	}
	return def, ttl, nil
}

// CreateContainer creates a container in database dbRef from its JSON body.
func (s *Service) CreateContainer(ctx context.Context, dbRef string, body []byte, tp *Throughput) (Container, error) {
	obj, err := decodeObject(ctx, body)
	if err != nil {
		return Container{}, err
	}
	idv, _ := obj.Get("id")
	id, err := ValidateResourceName(idv)
	if err != nil {
		return Container{}, err
	}
	def, ttl, err := normalizeContainer(obj)
	if err != nil {
		return Container{}, err
	}
	offer, err := tp.offer()
	if err != nil {
		return Container{}, err
	}
	// without throughput of its own, a container in a database without
	// shared throughput gets the service's minimum (the store decides)
	dflt, err := (&Throughput{Manual: MinThroughput}).offer()
	if err != nil {
		return Container{}, err
	}
	ts := s.now()
	// The container's ranges follow its own throughput (one for a
	// container of a shared-throughput database, which has none).
	n := max(RangeCountFor(tp), s.minRanges)
	props := EncodeJSON(obj)
	parsed, err := ParseContainerDefinition(props)
	if err != nil {
		return Container{}, err
	}
	return s.store.CreateContainer(ctx, CreateContainerParams{
		DatabaseRef: dbRef, ID: id, Properties: props, Definition: parsed, PartitionKey: def,
		DefaultTTL: ttl, TS: ts, ETag: NewETag(ts), Offer: offer, DefaultOffer: dflt,
		Ranges: InitialRanges(def, n, ts, 0), // the store stamps the LSN
	})
}

// GetContainer reads a container.
func (s *Service) GetContainer(ctx context.Context, dbRef, collRef string) (Container, error) {
	return s.store.GetContainer(ctx, dbRef, collRef)
}

// DeleteContainer deletes a container with its items and offer.
func (s *Service) DeleteContainer(ctx context.Context, dbRef, collRef string) error {
	return s.store.DeleteContainer(ctx, dbRef, collRef)
}

// ReplaceContainer replaces a container's properties. The id and partition
// key cannot change; a container's unique keys cannot change (403, as on
// the service); neither can its vector policies, which are compared before
// the rest of the body is validated, as the service does. The items are
// kept. Replace is a full PUT: a body without defaultTtl turns TTL off.
func (s *Service) ReplaceContainer(ctx context.Context, dbRef, collRef string, body []byte, ifMatch string) (Container, error) {
	obj, err := decodeObject(ctx, body)
	if err != nil {
		return Container{}, err
	}
	// The service compares the vector policies before it validates the
	// body: a replace that changes them is answered with that refusal
	// even when the body lacks other members (the JS SDK's container spec
	// replaces with such a body and compares the message). The check in
	// the store's transaction below still holds against a concurrent
	// replace.
	if cur, err := s.store.GetContainer(ctx, dbRef, collRef); err == nil {
		curObj, err := DecodeJSON(cur.Properties)
		if err != nil {
			return Container{}, fmt.Errorf("stored container properties: %w", err)
		}
		if err := checkVectorPoliciesUnchanged(curObj.(*Object), obj); err != nil {
			return Container{}, err
		}
	} else if !IsKind(err, KindNotFound) {
		return Container{}, err
	}
	idv, _ := obj.Get("id")
	id, err := ValidateResourceName(idv)
	if err != nil {
		return Container{}, err
	}
	def, ttl, err := normalizeContainer(obj)
	if err != nil {
		return Container{}, err
	}
	props := EncodeJSON(obj)
	parsed, err := ParseContainerDefinition(props)
	if err != nil {
		return Container{}, err
	}
	ts := s.now()
	return s.store.ReplaceContainer(ctx, ReplaceContainerParams{
		DatabaseRef: dbRef, CollRef: collRef, Properties: props, Definition: parsed, DefaultTTL: ttl, TS: ts, ETag: NewETag(ts),
		Check: func(cur Container) error {
			if ifMatch != "" && ifMatch != "*" && ifMatch != cur.ETag {
				return ErrPrecondition
			}
			if id != cur.ID {
				return BadRequest("The id of a container cannot be changed: the body says '%s', the URL addresses '%s'.", id, cur.ID)
			}
			if !reflect.DeepEqual(def.Paths, cur.PartitionKey.Paths) || def.Kind != cur.PartitionKey.Kind {
				return BadRequest("The partition key of a container cannot be changed.")
			}
			curObj, err := DecodeJSON(cur.Properties)
			if err != nil {
				return fmt.Errorf("stored container properties: %w", err)
			}
			if !sameMember(curObj.(*Object), obj, "uniqueKeyPolicy", "uniqueKeys") {
				return Errorf(KindForbidden, "The unique index cannot be modified. To change the unique index, remove the collection and re-create a new one.")
			}
			return checkVectorPoliciesUnchanged(curObj.(*Object), obj)
		},
	})
}

// ---- offers

// GetOffer reads an offer by RID.
func (s *Service) GetOffer(ctx context.Context, rid string) (Offer, error) {
	return s.store.GetOffer(ctx, rid)
}

// ReplaceOffer replaces an offer's content (manual throughput or autoscale
// max throughput) from a full offer body.
func (s *Service) ReplaceOffer(ctx context.Context, rid string, body []byte) (Offer, error) {
	var in struct {
		Content *struct {
			OfferThroughput        int `json:"offerThroughput"`
			OfferAutopilotSettings *struct {
				MaxThroughput     int `json:"maxThroughput"`
				AutoUpgradePolicy *struct {
					ThroughputPolicy *struct {
						IncrementPercent int `json:"incrementPercent"`
					} `json:"throughputPolicy"`
				} `json:"autoUpgradePolicy"`
			} `json:"offerAutopilotSettings"`
		} `json:"content"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return Offer{}, &Error{Kind: KindBadRequest, Message: MsgInvalidPayload, Err: err}
	}
	if in.Content == nil {
		return Offer{}, BadRequest("The offer content is missing.")
	}
	tp := &Throughput{Manual: in.Content.OfferThroughput}
	if a := in.Content.OfferAutopilotSettings; a != nil && a.MaxThroughput > 0 {
		tp = &Throughput{AutoscaleMax: a.MaxThroughput}
		if a.AutoUpgradePolicy != nil && a.AutoUpgradePolicy.ThroughputPolicy != nil {
			tp.AutoscaleIncrementPercent = a.AutoUpgradePolicy.ThroughputPolicy.IncrementPercent
		}
	}
	content, err := tp.content()
	if err != nil {
		return Offer{}, err
	}
	ts := s.now()
	o, err := s.store.ReplaceOffer(ctx, ReplaceOfferParams{RID: rid, Content: content, TS: ts, ETag: NewETag(ts)})
	if err != nil {
		return o, err
	}
	// A container's throughput that needs more partitions than it has
	// splits its largest ranges (never merges on a decrease, as the
	// service keeps its physical partitions). The split follows the
	// offer's commit: a failure leaves the new throughput with the old
	// ranges, which the next replace splits again.
	if n := RangeCountFor(tp); n > 1 {
		if b, ok := DecodeRID(o.ResourceRID); ok && len(b) == 8 {
			if err := s.growRanges(ctx, DatabaseRID(int64(binary.BigEndian.Uint32(b[:4]))), o.ResourceRID, n); err != nil {
				return o, err
			}
		}
	}
	return o, nil
}

// ---- items

// ItemRequest is a point operation on an item.
type ItemRequest struct {
	Database, Container string
	// PartitionKey is the decoded x-ms-documentdb-partitionkey header; nil
	// when the header is absent.
	PartitionKey PartitionKey
	ID           string // from the URL (read, replace, patch, delete)
	Body         []byte // create, upsert, replace, patch
	IfMatch      string
	IfNoneMatch  string
	// PreTrigger and PostTrigger are the x-ms-documentdb-pre/post-trigger-
	// include headers of a write ("" for none; emulator/triggers.go).
	PreTrigger, PostTrigger string
}

// ItemResult is the outcome of a point operation.
type ItemResult struct {
	Container Container
	Item      Item
	// Body, when not nil, is the response body a post-trigger set, sent
	// instead of the rendered Item.
	Body []byte
	// Created reports that an upsert inserted.
	Created bool
	// NotModified reports that a read's If-None-Match matched.
	NotModified bool
}

// checkPKHeader returns the canonical key of the header for container c.
// A container with the system key (SystemPartitionKey) takes a missing
// header, as legacy clients send, and the empty key [], as the SDKs send
// for such a container (JS undefinedPartitionKey, .NET PartitionKey.None,
// whose effective partition key is ""), as the undefined key: the "none"
// partition of the items that lack /_partitionKey, the only one a
// non-partitioned container's items are in.
func checkPKHeader(c Container, hdr PartitionKey) (string, error) {
	if len(hdr) == 0 && c.PartitionKey.SystemKey {
		hdr = PartitionKey{Undefined}
	}
	if hdr == nil || len(hdr) < len(c.PartitionKey.Paths) {
		return "", ErrPKTooFew
	}
	if len(hdr) > len(c.PartitionKey.Paths) {
		return "", BadRequest("The partition key supplied in x-ms-partitionkey header has more components than defined in the the collection.").WithSub(SubStatusPartitionKeyMismatch)
	}
	return hdr.Canonical(), nil
}

// preparedItem is a validated document ready to store.
type preparedItem struct {
	id   string
	pk   string // canonical partition key extracted from the document
	ttl  *int32
	body []byte
}

// prepareItem validates a document body against container c and checks that
// its partition key matches the header's.
func prepareItem(ctx context.Context, c Container, body []byte, hdr PartitionKey) (preparedItem, error) {
	want, err := checkPKHeader(c, hdr)
	if err != nil {
		return preparedItem{}, err
	}
	doc, err := decodeObject(ctx, body)
	if err != nil {
		return preparedItem{}, err
	}
	return prepareObject(c, doc, want)
}

// prepareObject is prepareItem over a decoded document and the canonical
// key it must carry.
func prepareObject(c Container, doc *Object, want string) (preparedItem, error) {
	p, err := prepareDoc(c, doc)
	if err != nil {
		return preparedItem{}, err
	}
	if p.pk != want {
		return preparedItem{}, ErrPKMismatch
	}
	return p, nil
}

// prepareDoc drops client-sent system properties, validates id and ttl, and
// encodes the document for storage.
func prepareDoc(c Container, doc *Object) (preparedItem, error) {
	for _, p := range systemProperties {
		doc.Delete(p)
	}
	idv, _ := doc.Get("id")
	id, err := ValidateItemID(idv)
	if err != nil {
		return preparedItem{}, err
	}
	ttl, err := ValidateItemTTL(doc)
	if err != nil {
		return preparedItem{}, err
	}
	out := EncodeJSON(doc)
	if len(out) > MaxItemSize {
		return preparedItem{}, ErrTooLarge
	}
	return preparedItem{id: id, pk: ExtractPartitionKey(doc, c.PartitionKey).Canonical(), ttl: ttl, body: out}, nil
}

func (s *Service) expiry(c Container) Expiry {
	return Expiry{Now: s.now(), DefaultTTL: c.DefaultTTL}
}

func (s *Service) writeParams(c Container, p preparedItem, ifMatch string) WriteItemParams {
	e := s.expiry(c)
	return WriteItemParams{
		ItemKey: ItemKey{Container: c, PK: p.pk, ID: p.id, Expiry: e},
		Body:    p.body, TTL: p.ttl, TS: e.Now, ETag: NewETag(e.Now), IfMatch: ifMatch,
	}
}

// writeRequest resolves the container of a document write and validates
// the body against it and the partition key header.
func (s *Service) writeRequest(ctx context.Context, r ItemRequest) (Container, preparedItem, error) {
	c, err := s.store.GetContainer(ctx, r.Database, r.Container)
	if err != nil {
		return c, preparedItem{}, err
	}
	p, err := prepareItem(ctx, c, r.Body, r.PartitionKey)
	return c, p, err
}

// CreateItem creates a document (201; 409 when a live item with the same id
// exists in the logical partition).
func (s *Service) CreateItem(ctx context.Context, r ItemRequest) (ItemResult, error) {
	if r.hasTriggers() {
		return s.triggeredWrite(ctx, OpCreate, r)
	}
	c, p, err := s.writeRequest(ctx, r)
	if err != nil {
		return ItemResult{Container: c}, err
	}
	it, err := s.store.CreateItem(ctx, s.writeParams(c, p, ""))
	return ItemResult{Container: c, Item: it, Created: err == nil}, err
}

// UpsertItem creates or replaces a document (201 created, 200 replaced).
func (s *Service) UpsertItem(ctx context.Context, r ItemRequest) (ItemResult, error) {
	if r.hasTriggers() {
		return s.triggeredWrite(ctx, OpUpsert, r)
	}
	c, p, err := s.writeRequest(ctx, r)
	if err != nil {
		return ItemResult{Container: c}, err
	}
	it, created, err := s.store.UpsertItem(ctx, s.writeParams(c, p, r.IfMatch))
	return ItemResult{Container: c, Item: it, Created: created}, err
}

// ReplaceItem replaces a live document (200; 404 when missing or expired;
// 412 when If-Match does not match).
func (s *Service) ReplaceItem(ctx context.Context, r ItemRequest) (ItemResult, error) {
	if r.hasTriggers() {
		return s.triggeredWrite(ctx, OpReplace, r)
	}
	c, p, err := s.writeRequest(ctx, r)
	if err != nil {
		return ItemResult{Container: c}, err
	}
	if r.ID, err = s.itemID(ctx, c, r); err != nil {
		return ItemResult{Container: c}, err
	}
	it, err := s.store.ReplaceItem(ctx, s.replaceParams(c, p, r.IfMatch, r.ID))
	return ItemResult{Container: c, Item: it}, err
}

// replaceParams are the store parameters of a replace of the item with
// id by p. A body naming another id renames the item, as the service does
// (the Python SDK's test_headers.py replaces an item under a new id,
// test_container_replace_item_throughput_bucket); a batch's replace
// renames the same way.
func (s *Service) replaceParams(c Container, p preparedItem, ifMatch, id string) WriteItemParams {
	wp := s.writeParams(c, p, ifMatch)
	if p.id != id {
		wp.ID, wp.NewID = id, p.id
	}
	return wp
}

// idMismatch is the 400 of a replace whose body names another item.
func idMismatch(body, url string) error {
	return BadRequest("The id '%s' in the request body does not match the id '%s' in the request URL.", body, url)
}

// ReadItem reads a live document (200; 404 when missing or expired; 304
// when If-None-Match equals its etag).
func (s *Service) ReadItem(ctx context.Context, r ItemRequest) (ItemResult, error) {
	c, key, err := s.pointRequest(ctx, r)
	if err != nil {
		return ItemResult{Container: c}, err
	}
	it, err := s.store.ReadItem(ctx, key)
	if err != nil {
		return ItemResult{Container: c}, err
	}
	res := ItemResult{Container: c, Item: it}
	if r.IfNoneMatch != "" && (r.IfNoneMatch == it.ETag || r.IfNoneMatch == "*") {
		res.NotModified = true
	}
	return res, nil
}

// DeleteItem deletes a live document (204; 404; 412).
func (s *Service) DeleteItem(ctx context.Context, r ItemRequest) (ItemResult, error) {
	if r.hasTriggers() {
		return s.triggeredWrite(ctx, OpDelete, r)
	}
	c, key, err := s.pointRequest(ctx, r)
	if err != nil {
		return ItemResult{Container: c}, err
	}
	lsn, err := s.store.DeleteItem(ctx, key, r.IfMatch)
	return ItemResult{Container: c, Item: Item{ID: r.ID, PK: key.PK, LSN: lsn}}, err
}

// pointRequest resolves the container and the key of a point operation
// addressed by URL id and partition key header, as of now.
func (s *Service) pointRequest(ctx context.Context, r ItemRequest) (Container, ItemKey, error) {
	c, err := s.store.GetContainer(ctx, r.Database, r.Container)
	if err != nil {
		return c, ItemKey{}, err
	}
	pk, err := checkPKHeader(c, r.PartitionKey)
	if err != nil {
		return c, ItemKey{}, err
	}
	id, err := s.itemID(ctx, c, r)
	if err != nil {
		return c, ItemKey{}, err
	}
	return c, ItemKey{Container: c, PK: pk, ID: id, Expiry: s.expiry(c)}, nil
}

// itemID returns the id of the item a point request addresses: r.ID, or,
// when the request names the database, the container and the item by
// their RIDs (an item's `_self` link, dbs/{rid}/colls/{rid}/docs/{rid}),
// the id of the item of the header's partition whose _rid that is
// (ErrItemNotFound when there is none). The Python SDK reads, replaces and
// deletes an item given as a dict through its `_self` link.
func (s *Service) itemID(ctx context.Context, c Container, r ItemRequest) (string, error) {
	if r.Database != c.DatabaseRID || r.Container != c.RID {
		return r.ID, nil
	}
	b, ok := DecodeRID(r.ID)
	cb, cok := DecodeRID(c.RID)
	if !ok || !cok || len(b) != 16 || len(cb) != 8 || string(b[:8]) != string(cb) {
		return r.ID, nil
	}
	seq := binary.LittleEndian.Uint64(b[8:])
	res, err := s.QueryItems(ctx, QueryRequest{
		Database: r.Database, Container: r.Container, PartitionKey: r.PartitionKey,
		Query: Query{
			Text:       "SELECT VALUE c.id FROM c WHERE DOCUMENTID(c) = @seq",
			Parameters: []QueryParameter{{Name: "@seq", Value: json.RawMessage(fmt.Sprint(seq))}},
		},
	})
	if err != nil {
		return "", err
	}
	if len(res.Docs) == 0 {
		return "", ErrItemNotFound
	}
	var id string
	if err := json.Unmarshal(res.Docs[0], &id); err != nil {
		return "", err
	}
	return id, nil
}

// patchRetries bounds the optimistic read-modify-write loop of PatchItem.
const patchRetries = 20

// PatchItem applies partial-update operations atomically: the document is
// read, patched in memory and written back conditioned on the etag it was
// read with, retrying when another writer got in between.
func (s *Service) PatchItem(ctx context.Context, r ItemRequest) (ItemResult, error) {
	c, key, err := s.pointRequest(ctx, r)
	if err != nil {
		return ItemResult{Container: c}, err
	}
	v, err := decodeBody(ctx, r.Body)
	if err != nil {
		return ItemResult{Container: c}, err
	}
	pr, err := parsePatchRequest(v)
	if err != nil {
		return ItemResult{Container: c}, err
	}
	pr.ifMatch = r.IfMatch
	return s.patch(ctx, s.store, c, key, pr)
}

// patchRequest is a parsed patch: its operations, its condition (nil when
// none) with the condition's text, and the If-Match.
type patchRequest struct {
	ops       PatchOperations
	cond      *cosmosql.Query
	condition string
	ifMatch   string
}

// parsePatchRequest parses a decoded patch body (ParsePatch) and its
// condition; the If-Match is left to the caller.
func parsePatchRequest(v any) (patchRequest, error) {
	ops, condition, err := parsePatchValue(v)
	if err != nil {
		return patchRequest{}, err
	}
	cond, err := parseCondition(condition)
	if err != nil {
		return patchRequest{}, err
	}
	return patchRequest{ops: ops, cond: cond, condition: condition}, nil
}

// patch applies pr to the item at key through st (the store, or a batch's
// transaction).
func (s *Service) patch(ctx context.Context, st ItemStore, c Container, key ItemKey, pr patchRequest) (ItemResult, error) {
	pk := key.PK
	for attempt := 0; ; attempt++ {
		key.Expiry = s.expiry(c)
		cur, err := st.ReadItem(ctx, key)
		if err != nil {
			return ItemResult{Container: c}, err
		}
		if pr.ifMatch != "" && pr.ifMatch != "*" && pr.ifMatch != cur.ETag {
			return ItemResult{Container: c}, ErrPrecondition
		}
		if pr.cond != nil {
			// The condition is evaluated against the document as read; the
			// write below is conditioned on that version's etag.
			page, err := s.store.QueryDocuments(ctx, [][]byte{cur.JSON(c)}, QueryItemsParams{Query: pr.cond, Text: pr.condition, Page: PageRequest{MaxItems: 1}})
			if err != nil {
				return ItemResult{Container: c}, err
			}
			if len(page.Docs) == 0 {
				return ItemResult{Container: c}, ErrPrecondition
			}
		}
		v, err := DecodeJSON(cur.Body)
		if err != nil {
			return ItemResult{Container: c}, fmt.Errorf("stored document: %w", err)
		}
		doc := v.(*Object)
		if err := pr.ops.Apply(doc); err != nil {
			return ItemResult{Container: c}, err
		}
		if idv, _ := doc.Get("id"); idv != key.ID {
			return ItemResult{Container: c}, BadRequest("The id of a document cannot be changed by a patch operation.")
		}
		p, err := prepareDoc(c, doc)
		if err != nil {
			return ItemResult{Container: c}, err
		}
		if p.pk != pk {
			return ItemResult{Container: c}, BadRequest("The partition key of a document cannot be changed by a patch operation.")
		}
		it, err := st.ReplaceItem(ctx, s.writeParams(c, p, cur.ETag))
		if IsKind(err, KindPreconditionFailed) && attempt < patchRetries {
			continue // a concurrent writer changed the document: patch the new version
		}
		return ItemResult{Container: c, Item: it}, err
	}
}

// parseCondition parses a patch condition ("from c where ...") into the
// query "SELECT VALUE 1 from c where ...", which yields a row exactly when
// the condition holds.
func parseCondition(condition string) (*cosmosql.Query, error) {
	condition = strings.TrimSpace(condition)
	if condition == "" {
		return nil, nil
	}
	if len(condition) < 5 || !strings.EqualFold(condition[:5], "from ") {
		return nil, BadRequest("The patch condition '%s' is invalid: it must have the form \"from c where <predicate>\".", condition)
	}
	return ParseQuery("SELECT VALUE 1 " + condition)
}

// FeedRequest asks for one page of a container's items.
type FeedRequest struct {
	Database, Container string
	PartitionKey        PartitionKey // nil: every partition
	// RangeID is x-ms-documentdb-partitionkeyrangeid ("" when absent): the
	// read covers that live range's EPKs (410/1002 when it is not live).
	RangeID string
	// StartEPK and EndEPK, when EPKRange is set (x-ms-start-epk,
	// x-ms-end-epk), confine the feed to the items whose effective
	// partition key lies in [StartEPK, EndEPK) (within the range RangeID
	// names, when set).
	EPKRange         bool
	StartEPK, EndEPK string
	Page             PageRequest
}

// FeedResult is one page of items.
type FeedResult struct {
	Container Container
	// Range is the partition key range the request named (zero when none).
	Range        PartitionKeyRange
	Items        []Item
	Continuation string // "" on the last page
}

// ReadFeed returns one page of live items in creation order.
func (s *Service) ReadFeed(ctx context.Context, r FeedRequest) (FeedResult, error) {
	c, err := s.store.GetContainer(ctx, r.Database, r.Container)
	if err != nil {
		return FeedResult{}, err
	}
	var pk *string
	if r.PartitionKey != nil {
		k, err := checkPKHeader(c, r.PartitionKey)
		if err != nil {
			return FeedResult{Container: c}, err
		}
		pk = &k
	}
	scope, err := c.ResolveRangeScope(r.RangeID, r.EPKRange, r.StartEPK, r.EndEPK)
	if err != nil {
		return FeedResult{Container: c}, err
	}
	after, err := decodeSeqContinuation(r.Page.Continuation)
	if err != nil {
		return FeedResult{Container: c}, err
	}
	limit := r.Page.Limit()
	items, err := s.store.ReadItems(ctx, ReadItemsParams{Container: c, PK: pk, EPK: scope.EPK, AfterSeq: after, Limit: limit + 1, Expiry: s.expiry(c)})
	if err != nil {
		return FeedResult{Container: c}, err
	}
	page, more := Paginate(items, limit, func(it Item) int { return len(it.Body) + 200 })
	res := FeedResult{Container: c, Range: scope.Range, Items: page}
	if more {
		res.Continuation = encodeSeqContinuation(page[len(page)-1].Seq)
	}
	return res, nil
}

// ContainerStats counts stored rows and live items of every container, as
// of the emulator's current time.
func (s *Service) ContainerStats(ctx context.Context) ([]ContainerStats, error) {
	return s.store.ContainerStats(ctx, s.now())
}

// ProvisionedThroughput returns the request units per second container c
// may use and whose budget they are: the container's own offer (manual
// RU/s, or the maximum of autoscale) with owner c.RID, else its database's
// shared offer with owner c.DatabaseRID; ru is 0 when neither has an
// offer. It lists the offers, so callers cache the answer.
func (s *Service) ProvisionedThroughput(ctx context.Context, c Container) (ru int, owner string, err error) {
	offers, err := s.store.ListOffers(ctx)
	if err != nil {
		return 0, "", err
	}
	var shared []byte
	for _, o := range offers {
		switch o.ResourceRID {
		case c.RID:
			return offerRU(o.Content), c.RID, nil
		case c.DatabaseRID:
			shared = o.Content
		}
	}
	if shared != nil {
		return offerRU(shared), c.DatabaseRID, nil
	}
	return 0, "", nil
}

// offerRU reads the RU/s of an offer's content: the autoscale maximum when
// set, else offerThroughput.
func offerRU(content []byte) int {
	var in struct {
		OfferThroughput        int `json:"offerThroughput"`
		OfferAutopilotSettings *struct {
			MaxThroughput int `json:"maxThroughput"`
		} `json:"offerAutopilotSettings"`
	}
	if json.Unmarshal(content, &in) != nil {
		return 0
	}
	if a := in.OfferAutopilotSettings; a != nil && a.MaxThroughput > 0 {
		return a.MaxThroughput
	}
	return in.OfferThroughput
}
