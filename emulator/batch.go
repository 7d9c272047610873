package emulator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// MaxBatchOperations is the most operations of one batch request
// (transactional or bulk), as on the service (reference §8.3).
const MaxBatchOperations = 100

// Messages of batch requests refused as a whole.
const (
	MsgBatchTooManyOps = "Batch request has more operations than what is supported."
	MsgBatchNoOps      = "Batch request has no operations."
	MsgBatchNotArray   = "The batch request body must be a JSON array of operations."
)

// ItemStore is the item point operations of a Store; a batch runs them
// inside one transaction (Store.InItemTx).
//
// Writes that race on one item end as the service would have them end had
// they run one after the other: KindPreconditionFailed answers only an
// If-Match that did not hold on the version the write met; a replace or
// delete whose item a concurrent write deleted (or left expired) is
// ErrItemNotFound; an upsert that meets an item created concurrently
// replaces it (created false, that item's Seq); a create that does is
// ErrConflict.
type ItemStore interface {
	ReadItem(ctx context.Context, k ItemKey) (Item, error)
	// CreateItem inserts the item; a live item with the same key is a
	// conflict, an expired one is replaced.
	CreateItem(ctx context.Context, p WriteItemParams) (Item, error)
	// UpsertItem inserts or replaces the item; created reports an insert.
	UpsertItem(ctx context.Context, p WriteItemParams) (it Item, created bool, err error)
	// ReplaceItem replaces a live item, checking p.IfMatch atomically.
	ReplaceItem(ctx context.Context, p WriteItemParams) (Item, error)
	// DeleteItem deletes a live item, checking ifMatch atomically; it
	// returns the write's LSN.
	DeleteItem(ctx context.Context, k ItemKey, ifMatch string) (int64, error)
}

// TxOptions qualify the transaction of Store.InItemTx.
type TxOptions struct {
	// SharedLSN gives every write of the transaction the same LSN (_lsn),
	// as the service does for a transactional batch; otherwise (bulk)
	// each write takes its own, as a single operation does.
	SharedLSN bool
}

// BatchRequest is a transactional batch or a bulk request: POST .../docs
// with x-ms-cosmos-is-batch-request.
type BatchRequest struct {
	Database, Container string
	// PartitionKey is the decoded partition key header (nil: absent).
	PartitionKey PartitionKey
	// ParsePartitionKey decodes an operation's own partitionKey member (the
	// header's syntax); bulk operations carry one.
	ParsePartitionKey func(string) (PartitionKey, error)
	Body              []byte // the JSON array of operations
	// Atomic: all operations commit or none (transactional batch); else
	// each operation stands alone (bulk).
	Atomic bool
	// ContinueOnError (bulk only): run the operations after a failed one;
	// otherwise they are not run and report 424.
	ContinueOnError bool
}

// Batch operation types, as the SDKs spell them.
const (
	BatchCreate  = "Create"
	BatchUpsert  = "Upsert"
	BatchRead    = "Read"
	BatchReplace = "Replace"
	BatchDelete  = "Delete"
	BatchPatch   = "Patch"
)

var batchOpTypes = []string{BatchCreate, BatchUpsert, BatchRead, BatchReplace, BatchDelete, BatchPatch}

// BatchOpResult is the outcome of one operation of a batch.
type BatchOpResult struct {
	Op   string // one of the Batch* operation types
	Item Item   // the item read or written (Delete: ID, PK and LSN)
	// Created reports that an upsert inserted.
	Created bool
	// NotModified reports that a read's ifNoneMatch matched.
	NotModified bool
	// Err is the operation's own failure.
	Err error
	// Dependent reports an operation that was not run, or was rolled
	// back, because another one failed (424 Failed Dependency).
	Dependent bool
}

// BatchResult is the outcome of a batch: one result per operation, in
// input order.
type BatchResult struct {
	Container Container
	Ops       []BatchOpResult
	// Failed reports that some operation failed (207 Multi-Status).
	Failed bool
}

// batchOp is a parsed operation.
type batchOp struct {
	op       string
	id       string
	body     *Object // Create, Upsert, Replace
	patch    patchRequest
	ifMatch  string
	ifNone   string
	pk       PartitionKey // the operation's key; nil: the header's
	pkErr    error        // an operation key that does not parse
	hasOwnPK bool
}

// errBatchAborted rolls an atomic batch back after an operation failed.
var errBatchAborted = errors.New("batch aborted")

// ExecuteBatch runs a transactional batch or a bulk request. A request
// refused as a whole (not an array, too many operations, an unknown
// operation type, a missing id, an invalid patch) is an error and runs
// nothing; otherwise each operation's outcome is in the result, and an
// error means the storage failed (nothing of an atomic batch is written).
//
// The operations run in one transaction. Runs of operations other than
// Patch (which reads before it writes) go to the store in one round trip
// when it can pipeline them (ItemTx.RunItemOps), except in bulk without
// continue-on-error, where nothing may run after a failure.
func (s *Service) ExecuteBatch(ctx context.Context, r BatchRequest) (BatchResult, error) {
	c, err := s.store.GetContainer(ctx, r.Database, r.Container)
	if err != nil {
		return BatchResult{}, err
	}
	if r.Atomic {
		// a transactional batch addresses the header's logical partition
		if _, err := checkPKHeader(c, r.PartitionKey); err != nil {
			if errors.Is(err, ErrPKTooFew) {
				err = BadRequest("%s", MsgBatchPKIncomplete).WithSub(SubStatusPartitionKeyMismatch)
			}
			return BatchResult{Container: c}, err
		}
	}
	ops, err := parseBatch(ctx, r)
	if err != nil {
		return BatchResult{Container: c}, err
	}
	res := BatchResult{Container: c, Ops: make([]BatchOpResult, len(ops))}
	stopOnError := r.Atomic || !r.ContinueOnError
	err = s.store.InItemTx(ctx, TxOptions{SharedLSN: r.Atomic}, func(st ItemTx) error {
		clear(res.Ops) // a run again starts afresh
		res.Failed = false
		pipe := r.Atomic || r.ContinueOnError
		for i := 0; i < len(ops); {
			next := i + 1
			if pipe && ops[i].op != BatchPatch {
				var err error
				if next, err = s.runPipelined(ctx, st, c, r, ops, i, res.Ops); err != nil {
					return err
				}
			} else {
				res.Ops[i] = s.runBatchOp(ctx, st, c, r.PartitionKey, ops[i])
			}
			for j := i; j < next; j++ {
				if IsStorageFailure(res.Ops[j].Err) {
					return res.Ops[j].Err // the transaction is unusable
				}
			}
			if f := firstFailure(res.Ops[:next]); f >= 0 {
				res.Failed = true
				if stopOnError {
					for j := range res.Ops {
						if j != f && (r.Atomic || j > f) {
							res.Ops[j] = BatchOpResult{Op: ops[j].op, Dependent: true}
						}
					}
					if r.Atomic {
						return errBatchAborted
					}
					return nil
				}
			}
			i = next
		}
		return nil
	})
	if err != nil && !errors.Is(err, errBatchAborted) {
		return BatchResult{Container: c}, err
	}
	return res, nil
}

// IsStorageFailure reports an error that is not an operation's own
// outcome but a failure of the storage (KindInternal, KindUnavailable):
// the transaction it happened in is unusable.
func IsStorageFailure(err error) bool {
	k := KindOf(err)
	return err != nil && (k == KindInternal || k == KindUnavailable)
}

// firstFailure returns the index of the first failed result, or -1.
func firstFailure(rs []BatchOpResult) int {
	for i, r := range rs {
		if r.Err != nil {
			return i
		}
	}
	return -1
}

// runPipelined runs the operations from ops[i] up to the next Patch (or,
// in an atomic batch, up to the first one that fails validation) in one
// call of pl, stores their results in out and returns the index after the
// last one run.
func (s *Service) runPipelined(ctx context.Context, pl ItemTx, c Container, r BatchRequest, ops []batchOp, i int, out []BatchOpResult) (int, error) {
	var items []ItemOp
	var idx []int
	j := i
	for ; j < len(ops) && ops[j].op != BatchPatch; j++ {
		io, err := s.planBatchOp(c, r.PartitionKey, ops[j])
		if err != nil {
			out[j] = BatchOpResult{Op: ops[j].op, Err: err}
			if r.Atomic {
				j++
				break
			}
			continue
		}
		items = append(items, io)
		idx = append(idx, j)
	}
	if len(items) == 0 {
		return j, nil
	}
	results, err := pl.RunItemOps(ctx, items)
	if err != nil {
		return j, err
	}
	for k, rr := range results {
		out[idx[k]] = batchOpResult(ops[idx[k]], rr)
	}
	return j, nil
}

// planBatchOp validates op against container c (partition key, document)
// and returns it as an ItemOp; a Patch gets its key only.
func (s *Service) planBatchOp(c Container, hdr PartitionKey, op batchOp) (ItemOp, error) {
	if op.pkErr != nil {
		return ItemOp{}, op.pkErr
	}
	key := hdr
	if op.hasOwnPK {
		key = op.pk
	}
	want, err := checkPKHeader(c, key)
	if err != nil {
		return ItemOp{}, err
	}
	if op.hasOwnPK && hdr != nil {
		// compared as checked, so that [] and {} name the same partition
		// of a non-partitioned container
		if h, err := checkPKHeader(c, hdr); err != nil || h != want {
			return ItemOp{}, ErrPKMismatch
		}
	}
	switch op.op {
	case BatchCreate, BatchUpsert, BatchReplace:
		p, err := prepareObject(c, op.body, want)
		if err != nil {
			return ItemOp{}, err
		}
		ifMatch := op.ifMatch
		if op.op == BatchCreate {
			ifMatch = ""
		}
		if op.op == BatchReplace {
			return ItemOp{Op: op.op, Params: s.replaceParams(c, p, ifMatch, op.id)}, nil
		}
		return ItemOp{Op: op.op, Params: s.writeParams(c, p, ifMatch)}, nil
	}
	return ItemOp{Op: op.op, Params: WriteItemParams{ItemKey: ItemKey{Container: c, PK: want, ID: op.id, Expiry: s.expiry(c)}, IfMatch: op.ifMatch}}, nil
}

// runBatchOp runs one operation through st.
func (s *Service) runBatchOp(ctx context.Context, st ItemStore, c Container, hdr PartitionKey, op batchOp) BatchOpResult {
	io, err := s.planBatchOp(c, hdr, op)
	if err != nil {
		return BatchOpResult{Op: op.op, Err: err}
	}
	var r ItemOpResult
	switch op.op {
	case BatchCreate:
		r.Item, r.Err = st.CreateItem(ctx, io.Params)
	case BatchUpsert:
		r.Item, r.Created, r.Err = st.UpsertItem(ctx, io.Params)
	case BatchReplace:
		r.Item, r.Err = st.ReplaceItem(ctx, io.Params)
	case BatchRead:
		r.Item, r.Err = st.ReadItem(ctx, io.Params.ItemKey)
	case BatchDelete:
		r.Item = Item{ID: op.id, PK: io.Params.PK}
		r.Item.LSN, r.Err = st.DeleteItem(ctx, io.Params.ItemKey, op.ifMatch)
	case BatchPatch:
		pr := op.patch
		pr.ifMatch = op.ifMatch
		var ir ItemResult
		ir, r.Err = s.patch(ctx, st, c, io.Params.ItemKey, pr)
		r.Item = ir.Item
	}
	return batchOpResult(op, r)
}

// batchOpResult is the batch result of op's outcome r.
func batchOpResult(op batchOp, r ItemOpResult) BatchOpResult {
	return BatchOpResult{Op: op.op, Item: r.Item, Created: r.Created, Err: r.Err,
		NotModified: op.op == BatchRead && r.Err == nil && op.ifNone != "" && (op.ifNone == r.Item.ETag || op.ifNone == "*")}
}

// parseBatch decodes and checks the operations of a batch body.
func parseBatch(ctx context.Context, r BatchRequest) ([]batchOp, error) {
	v, err := decodeBody(ctx, r.Body)
	if err != nil {
		return nil, err
	}
	list, ok := v.([]any)
	if !ok {
		return nil, BadRequest(MsgBatchNotArray)
	}
	if len(list) == 0 {
		return nil, BadRequest(MsgBatchNoOps)
	}
	if len(list) > MaxBatchOperations {
		return nil, BadRequest(MsgBatchTooManyOps)
	}
	ops := make([]batchOp, len(list))
	for i, e := range list {
		if ops[i], err = parseBatchOp(e, r.ParsePartitionKey); err != nil {
			return nil, fmt.Errorf("operation %d: %w", i, err)
		}
	}
	return ops, nil
}

func parseBatchOp(e any, parsePK func(string) (PartitionKey, error)) (batchOp, error) {
	o, ok := e.(*Object)
	if !ok {
		return batchOp{}, BadRequest("Every operation of a batch request must be a JSON object.")
	}
	str := func(name string) (string, error) {
		v, ok := o.Get(name)
		if !ok || v == nil {
			return "", nil
		}
		s, ok := v.(string)
		if !ok {
			return "", BadRequest("The '%s' of a batch operation must be a string.", name)
		}
		return s, nil
	}
	var op batchOp
	t, err := str("operationType")
	if err != nil {
		return op, err
	}
	for _, k := range batchOpTypes {
		if strings.EqualFold(t, k) {
			op.op = k
		}
	}
	if op.op == "" {
		return op, BadRequest("The batch operation type '%s' is not supported: use Create, Upsert, Read, Replace, Delete or Patch.", t)
	}
	for _, f := range []struct {
		name string
		dst  *string
	}{{"id", &op.id}, {"ifMatch", &op.ifMatch}, {"ifNoneMatch", &op.ifNone}} {
		if *f.dst, err = str(f.name); err != nil {
			return op, err
		}
	}
	if pks, err := str("partitionKey"); err != nil {
		return op, err
	} else if pks != "" && parsePK != nil {
		op.hasOwnPK = true
		op.pk, op.pkErr = parsePK(pks)
	}
	body, hasBody := o.Get("resourceBody")
	switch op.op {
	case BatchCreate, BatchUpsert, BatchReplace:
		if op.body, ok = body.(*Object); !ok {
			return op, BadRequest("A %s operation of a batch needs a resourceBody that is a JSON object.", op.op)
		}
	case BatchPatch:
		if !hasBody {
			return op, BadRequest("A Patch operation of a batch needs a resourceBody with its operations.")
		}
		if op.patch, err = parsePatchRequest(body); err != nil {
			return op, err
		}
	}
	if op.op != BatchCreate && op.op != BatchUpsert && op.id == "" {
		return op, BadRequest("A %s operation of a batch needs an id.", op.op)
	}
	return op, nil
}

// PartitionDeleteBatch is the most items one statement of a partition
// delete removes: the background delete works in bounded steps, so it
// never holds a long transaction over a large partition.
const PartitionDeleteBatch = 1000

// partitionDeleteTimeout bounds one background partition delete.
const partitionDeleteTimeout = 10 * time.Minute

// DeletePartition starts deleting every item of the logical partition in
// the partition key header hdr (deleteAllItemsForPartitionKey): it checks
// the container and the key, then deletes in the background, in steps of
// PartitionDeleteBatch items, as the service does; the items disappear
// shortly after it returns. The background work outlives ctx, bounded in
// time; a storage failure ends it (a repeated request resumes it).
func (s *Service) DeletePartition(ctx context.Context, dbRef, collRef string, hdr PartitionKey) (Container, error) {
	c, err := s.store.GetContainer(ctx, dbRef, collRef)
	if err != nil {
		return c, err
	}
	pk, err := checkPKHeader(c, hdr)
	if err != nil {
		return c, err
	}
	bg, cancel := context.WithTimeout(context.WithoutCancel(ctx), partitionDeleteTimeout)
	go func() {
		defer cancel()
		for {
			n, err := s.store.DeletePartitionItems(bg, c, pk, PartitionDeleteBatch)
			if err != nil || n < PartitionDeleteBatch {
				return
			}
		}
	}()
	return c, nil
}

// ItemOp is one item point operation of a pipelined batch: Op is
// BatchCreate, BatchUpsert or BatchReplace (Params is the write),
// BatchRead (Params.ItemKey) or BatchDelete (Params.ItemKey and
// Params.IfMatch).
type ItemOp struct {
	Op     string
	Params WriteItemParams
}

// ItemOpResult is the outcome of an ItemOp: the item read or written
// (Delete: its LSN), Created for an upsert that inserted, and the
// operation's own failure.
type ItemOpResult struct {
	Item    Item
	Created bool
	Err     error
}

// ItemTx is what the operations of a Store.InItemTx transaction run on:
// the item point operations, one at a time or many at once.
type ItemTx interface {
	ItemStore
	// RunItemOps runs ops in order, each seeing the ones before, in one
	// round trip to the storage, and returns one result per operation. An
	// error means the transaction failed (a storage error, not an
	// operation's own 404, 409 or 412).
	RunItemOps(ctx context.Context, ops []ItemOp) ([]ItemOpResult, error)
}
