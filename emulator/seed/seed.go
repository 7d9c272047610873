// Package seed loads initial data into the emulator from a JSON file
// (--init-data, and the *.json files of Microsoft's INIT_PATH): databases,
// their containers with their definitions, items, stored procedures,
// triggers and user-defined functions. It works through emulator.Service
// alone, so every resource is validated by the code that validates the
// REST API's requests, and a refusal carries the API's message.
//
// The file:
//
//	{"databases": [{
//	    "id": "db1",
//	    "throughput": 400,                 // optional: shared throughput
//	    "autoscaleMaxThroughput": 4000,    // optional, instead of throughput
//	    "containers": [{
//	        "id": "c1", "partitionKey": {"paths": ["/pk"], "kind": "Hash"},
//	        ...                            // the rest of the body POST /dbs/{db}/colls takes
//	        "throughput": 400,             // optional
//	        "autoscaleMaxThroughput": 4000,// optional
//	        "items": [{"id": "1", "pk": "a"}, ...],
//	        "storedProcedures": [{"id": "sp", "body": "function () {...}"}],
//	        "triggers": [{"id": "t", "body": "...", "triggerType": "Pre", "triggerOperation": "All"}],
//	        "userDefinedFunctions": [{"id": "f", "body": "function (x) {...}"}]
//	    }]
//	}]}
//
// Loading creates what is absent and leaves what exists alone: a database,
// container, item or script whose id exists is not touched, whatever the
// file says of it. So a restart over kept data loads the same file again
// without error and keeps the changes clients made since. An item's
// partition key is read from the item at the container's partition key
// paths (those of the existing container, when it exists).
//
// Errors name where in the file they are, e.g.
// "databases[0].containers[1].items[7]: The input content is invalid
// because the required properties - 'id; ' - are missing". Resources
// before the failing one stay created; loading the corrected file again
// creates the rest.
package seed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// MaxFileSize is the largest init data file Load reads (256 MiB): the
// file is held in memory while it loads.
const MaxFileSize = 256 << 20

// MaxItems is the most items one file may hold, all containers together.
const MaxItems = 1_000_000

// batchSize is how many items go to the store in one bulk request (one
// transaction, one round trip): the service's limit of a batch.
const batchSize = emulator.MaxBatchOperations

// Result counts what a load created and what it found existing.
type Result struct {
	// Databases, Containers, Items and Scripts are the resources created.
	Databases, Containers, Items, Scripts int
	// Existing counts the resources of the file that existed already and
	// were left alone.
	Existing int
}

// file is the init data file's structure; containers stay raw, as they
// hold a container body of the API's.
type file struct {
	Databases []database `json:"databases"`
}

type database struct {
	ID                     json.RawMessage   `json:"id"`
	Throughput             *int              `json:"throughput"`
	AutoscaleMaxThroughput *int              `json:"autoscaleMaxThroughput"`
	Containers             []json.RawMessage `json:"containers"`
}

// container is a container entry split into the body the API takes and
// the members this file adds to it.
type container struct {
	body                   []byte
	throughput             *int
	autoscaleMaxThroughput *int
	items                  []json.RawMessage
	scripts                [3][]json.RawMessage // by scriptKinds
}

// scriptKinds are the script members of a container entry, with their
// kinds.
var scriptKinds = [3]struct {
	member string
	kind   emulator.ScriptKind
}{
	{"storedProcedures", emulator.ScriptSproc},
	{"triggers", emulator.ScriptTrigger},
	{"userDefinedFunctions", emulator.ScriptUDF},
}

// LoadFile reads the init data file at path (at most MaxFileSize bytes)
// and loads it into svc (Load).
func LoadFile(ctx context.Context, svc *emulator.Service, path string) (Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return Result{}, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return Result{}, err
	}
	if len(data) > MaxFileSize {
		return Result{}, fmt.Errorf("the file is larger than %d MiB", MaxFileSize>>20)
	}
	return Load(ctx, svc, data)
}

// Load loads init data (the package's format) into svc: it creates, in
// file order, each database, container, script and item that does not
// exist, and leaves the existing ones alone. It checks the file's
// structure and counts before it creates anything; a resource refused by
// the service ends the load with an error naming its place in the file
// and the service's message.
//
// The file is one JSON object (a UTF-8 byte order mark before it is
// skipped); anything but white space after it, a null or any other
// value, a syntax error (by line and column), a member of the wrong type
// (by its place in the file) and an unknown member refuse it, as does an
// id given twice in one scope of the file: two databases, two containers
// of a database, two scripts of a kind, or two items of a container with
// the same partition key. (An id that exists already in the emulator is
// not an error: see above.)
func Load(ctx context.Context, svc *emulator.Service, data []byte) (Result, error) {
	var res Result
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return res, errors.New(`not an init data file: it must be one JSON object, {"databases": [...]}`)
	}
	var f file
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return res, fmt.Errorf("not an init data file: %s", describeJSONError(data, err))
	}
	if off := int(dec.InputOffset()); len(bytes.TrimLeft(data[off:], " \t\r\n")) > 0 {
		line, col := position(data, off+len(data[off:])-len(bytes.TrimLeft(data[off:], " \t\r\n")))
		return res, fmt.Errorf("not an init data file: line %d, column %d: more data after the JSON object", line, col)
	}
	// Split every container first: a structural error, a repeated id or
	// too many items refuse the file before anything is created.
	conts := make([][]container, len(f.Databases))
	items := 0
	dbs := map[string]int{}
	for i, d := range f.Databases {
		if err := once(dbs, idOf(databaseBody(d)), fmt.Sprintf("databases[%d]", i)); err != nil {
			return res, err
		}
		conts[i] = make([]container, len(d.Containers))
		colls := map[string]int{}
		for j, raw := range d.Containers {
			at := fmt.Sprintf("databases[%d].containers[%d]", i, j)
			c, err := splitContainer(raw)
			if err != nil {
				return res, fmt.Errorf("%s: %w", at, err)
			}
			if err := once(colls, idOf(c.body), at); err != nil {
				return res, err
			}
			for k, sk := range scriptKinds {
				ids := map[string]int{}
				for n, raw := range c.scripts[k] {
					if err := once(ids, idOf(raw), fmt.Sprintf("%s.%s[%d]", at, sk.member, n)); err != nil {
						return res, err
					}
				}
			}
			conts[i][j] = c
			if items += len(c.items); items > MaxItems {
				return res, fmt.Errorf("%s.items: the file holds more than %d items, the most one file may hold", at, MaxItems)
			}
		}
	}
	for i, d := range f.Databases {
		at := fmt.Sprintf("databases[%d]", i)
		id, err := loadDatabase(ctx, svc, d, &res)
		if err != nil {
			return res, fmt.Errorf("%s: %w", at, err)
		}
		for j, c := range conts[i] {
			if err := loadContainer(ctx, svc, id, c, fmt.Sprintf("%s.containers[%d]", at, j), &res); err != nil {
				return res, err
			}
		}
	}
	return res, nil
}

// once records that id (a string id; "" when the entry has none, which
// the service refuses on its own) is at the place at of the file, or
// refuses an id seen before in the same scope.
func once(seen map[string]int, id, at string) error {
	if id == "" {
		return nil
	}
	if _, dup := seen[id]; dup {
		return fmt.Errorf("%s: the id %q is given twice in this file", at, id)
	}
	seen[id] = len(seen)
	return nil
}

// describeJSONError words a decoding error of the file for its author:
// where it is (line and column, or the member's place) and what is wrong,
// in the file's terms rather than Go's.
func describeJSONError(data []byte, err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		line, col := position(data, int(syn.Offset)-1)
		return fmt.Sprintf("line %d, column %d: %s", line, col, strings.TrimPrefix(syn.Error(), "json: "))
	case errors.As(err, &typ):
		line, col := position(data, int(typ.Offset)-1)
		want := "a value"
		switch typ.Type.Kind() {
		case reflect.Int:
			want = "an integer"
		case reflect.String:
			want = "a string"
		case reflect.Slice:
			want = "an array"
		case reflect.Struct, reflect.Map:
			want = "an object"
		}
		field := typ.Field
		if field == "" {
			field = "the file"
		}
		return fmt.Sprintf("line %d, column %d: %s must be %s, not %s", line, col, field, want, jsonKind(typ.Value))
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		line, col := position(data, len(data))
		return fmt.Sprintf("line %d, column %d: the JSON ends before it is complete", line, col)
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if name, ok := strings.CutPrefix(msg, "unknown field "); ok {
		return fmt.Sprintf("unknown member %s (the members are databases; id, throughput, autoscaleMaxThroughput and containers of a database)", name)
	}
	return msg
}

// jsonKind names the JSON type encoding/json reports as a value's kind.
func jsonKind(v string) string {
	switch v {
	case "string":
		return "a string"
	case "number":
		return "a number"
	case "bool":
		return "true or false"
	case "array":
		return "an array"
	case "object":
		return "an object"
	}
	return v
}

// position returns the 1-based line and column (in characters) of byte
// offset off of data.
func position(data []byte, off int) (line, col int) {
	off = max(0, min(off, len(data)))
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	if i := bytes.LastIndexByte(before, '\n'); i >= 0 {
		before = before[i+1:]
	}
	return line, utf8.RuneCount(before) + 1
}

// loadDatabase creates database d unless it exists and returns its id.
func loadDatabase(ctx context.Context, svc *emulator.Service, d database, res *Result) (string, error) {
	tp, err := throughput(d.Throughput, d.AutoscaleMaxThroughput)
	if err != nil {
		return "", message(err)
	}
	body := databaseBody(d)
	db, err := svc.CreateDatabase(ctx, body, tp)
	switch {
	case err == nil:
		res.Databases++
		return db.ID, nil
	case emulator.IsKind(err, emulator.KindConflict):
		res.Existing++
		return idOf(body), nil
	}
	return "", message(err)
}

// databaseBody is the body of the database entry d as POST /dbs takes it.
func databaseBody(d database) []byte {
	if d.ID == nil {
		return []byte(`{}`)
	}
	return append(append([]byte(`{"id":`), d.ID...), '}')
}

// loadContainer creates container c of database db unless it exists, then
// its scripts and items; at is its place in the file.
func loadContainer(ctx context.Context, svc *emulator.Service, db string, c container, at string, res *Result) error {
	tp, err := throughput(c.throughput, c.autoscaleMaxThroughput)
	if err != nil {
		return fmt.Errorf("%s: %w", at, message(err))
	}
	coll, err := svc.CreateContainer(ctx, db, c.body, tp)
	switch {
	case err == nil:
		res.Containers++
	case emulator.IsKind(err, emulator.KindConflict):
		res.Existing++
		if coll, err = svc.GetContainer(ctx, db, idOf(c.body)); err != nil {
			return fmt.Errorf("%s: %w", at, message(err))
		}
	default:
		return fmt.Errorf("%s: %w", at, message(err))
	}
	for k, sk := range scriptKinds {
		for n, raw := range c.scripts[k] {
			_, _, err := svc.CreateScript(ctx, db, coll.ID, sk.kind, raw)
			switch {
			case err == nil:
				res.Scripts++
			case emulator.IsKind(err, emulator.KindConflict):
				res.Existing++
			default:
				return fmt.Errorf("%s.%s[%d]: %w", at, sk.member, n, message(err))
			}
		}
	}
	seen := map[string]int{} // the file's items by id and partition key
	for start := 0; start < len(c.items); {
		end := batchEnd(c.items, start)
		if err := loadItems(ctx, svc, coll, c.items[start:end], at, start, seen, res); err != nil {
			return err
		}
		start = end
	}
	return nil
}

// batchBytes bounds the items of one bulk request, whose body is held to
// the limit of a request body (emulator.MaxItemSize), with room for the
// operations' envelopes.
const batchBytes = emulator.MaxItemSize - 64<<10

// batchEnd returns the end of the batch of items that starts at start: at
// most batchSize items of at most batchBytes together, and at least one
// (an item too large alone is refused as the API refuses it).
func batchEnd(items []json.RawMessage, start int) int {
	end, size := start, 0
	for end < len(items) && end-start < batchSize && (end == start || size+len(items[end]) <= batchBytes) {
		size += len(items[end])
		end++
	}
	return end
}

// loadItems creates items (those from index first of the container entry
// at) that do not exist, in one bulk request: each operation carries the
// partition key read from its own item. seen holds the items of the
// container entry before these, by id and partition key: an item given
// twice is refused.
func loadItems(ctx context.Context, svc *emulator.Service, coll emulator.Container, items []json.RawMessage, at string, first int, seen map[string]int, res *Result) error {
	keys := make([]emulator.PartitionKey, len(items))
	var ops bytes.Buffer
	ops.WriteByte('[')
	for k, raw := range items {
		if len(raw) > emulator.MaxItemSize {
			return fmt.Errorf("%s.items[%d]: %w", at, first+k, message(emulator.ErrTooLarge))
		}
		v, err := emulator.DecodeJSONContext(ctx, raw)
		if err != nil {
			return fmt.Errorf("%s.items[%d]: %w", at, first+k, message(bodyError(err)))
		}
		doc, ok := v.(*emulator.Object)
		if !ok {
			// the API's answer to a body that is not an object
			return fmt.Errorf("%s.items[%d]: %s", at, first+k, emulator.MsgInvalidPayload)
		}
		keys[k] = emulator.ExtractPartitionKey(doc, coll.PartitionKey)
		if id, isStr := doc.Get("id"); isStr {
			if s, ok := id.(string); ok {
				key := s + "\x00" + keys[k].Canonical()
				if prev, dup := seen[key]; dup {
					return fmt.Errorf("%s.items[%d]: the item id %q with this partition key is given twice in this file (also items[%d])", at, first+k, s, prev)
				}
				seen[key] = first + k
			}
		}
		if k > 0 {
			ops.WriteByte(',')
		}
		// the operation's partitionKey names its entry in keys
		fmt.Fprintf(&ops, `{"operationType":"Create","partitionKey":"%d","resourceBody":`, k)
		ops.Write(raw)
		ops.WriteByte('}')
	}
	ops.WriteByte(']')
	out, err := svc.ExecuteBatch(ctx, emulator.BatchRequest{
		Database: coll.DatabaseID, Container: coll.ID, Body: ops.Bytes(), ContinueOnError: true,
		ParsePartitionKey: func(s string) (emulator.PartitionKey, error) {
			k, _ := strconv.Atoi(s)
			return keys[k], nil
		},
	})
	if err != nil {
		return fmt.Errorf("%s.items[%d:%d]: %w", at, first, first+len(items), message(err))
	}
	for k, r := range out.Ops {
		switch {
		case r.Err == nil:
			res.Items++
		case emulator.IsKind(r.Err, emulator.KindConflict):
			res.Existing++
		default:
			return fmt.Errorf("%s.items[%d]: %w", at, first+k, message(r.Err))
		}
	}
	return nil
}

// bodyError is the API's refusal of a request body that does not decode
// (as the service's request decoding words it).
func bodyError(err error) error {
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.Is(err, emulator.ErrJSONInvalidUTF8), errors.Is(err, emulator.ErrJSONTooDeep):
		return emulator.InvalidBody(err)
	}
	return emulator.BadRequest(emulator.MsgInvalidPayload)
}

// splitContainer separates a container entry's own members (throughput,
// items, scripts) from the container body, which keeps its members in
// their order. An entry that is not an object is kept whole as the body:
// CreateContainer then refuses it with the API's message.
func splitContainer(raw json.RawMessage) (container, error) {
	c := container{body: raw}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return c, nil
	}
	var body bytes.Buffer
	body.WriteByte('{')
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return c, err
		}
		name, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return c, err
		}
		into := func(dst any) error {
			if err := json.Unmarshal(v, dst); err != nil {
				return fmt.Errorf("%s: %v", name, err)
			}
			return nil
		}
		switch name {
		case "throughput":
			err = into(&c.throughput)
		case "autoscaleMaxThroughput":
			err = into(&c.autoscaleMaxThroughput)
		case "items":
			err = into(&c.items)
		case scriptKinds[0].member:
			err = into(&c.scripts[0])
		case scriptKinds[1].member:
			err = into(&c.scripts[1])
		case scriptKinds[2].member:
			err = into(&c.scripts[2])
		default:
			if body.Len() > 1 {
				body.WriteByte(',')
			}
			key, _ := json.Marshal(name)
			body.Write(key)
			body.WriteByte(':')
			body.Write(v)
		}
		if err != nil {
			return c, err
		}
	}
	body.WriteByte('}')
	c.body = body.Bytes()
	return c, nil
}

// idOf returns the id of a resource body the service accepted (its
// create met an existing resource of that id), read as the service reads
// it.
func idOf(body []byte) string {
	v, _ := emulator.DecodeJSON(body)
	if o, ok := v.(*emulator.Object); ok {
		id, _ := o.Get("id")
		s, _ := id.(string)
		return s
	}
	return ""
}

// throughput is the provisioning of a database or container entry.
func throughput(manual, autoscale *int) (*emulator.Throughput, error) {
	switch {
	case manual != nil && autoscale != nil:
		return nil, errors.New("give throughput or autoscaleMaxThroughput, not both")
	case autoscale != nil:
		if *autoscale <= 0 {
			return nil, emulator.BadRequest("The autoscale maxThroughput must be a positive integer.")
		}
		return &emulator.Throughput{AutoscaleMax: *autoscale}, nil
	case manual != nil:
		return &emulator.Throughput{Manual: *manual}, nil
	}
	return nil, nil
}

// message is the client-facing message of a service error (what the API
// would answer in its body), else the error itself.
func message(err error) error {
	var e *emulator.Error
	if errors.As(err, &e) && e.Kind != emulator.KindInternal {
		return errors.New(e.Message)
	}
	return err
}
