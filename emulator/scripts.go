package emulator

import (
	"context"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
)

// ScriptKind is the kind of a server-side script resource, spelled as its
// path segment and auth resource type.
type ScriptKind string

// The script kinds.
const (
	ScriptSproc   ScriptKind = "sprocs"
	ScriptTrigger ScriptKind = "triggers"
	ScriptUDF     ScriptKind = "udfs"
)

// ParseScriptKind returns the kind named by a path segment; ok is false
// for any other segment.
func ParseScriptKind(seg string) (ScriptKind, bool) {
	switch k := ScriptKind(seg); k {
	case ScriptSproc, ScriptTrigger, ScriptUDF:
		return k, true
	}
	return "", false
}

// FeedName returns the member of the kind's feed envelope
// (StoredProcedures, Triggers, UserDefinedFunctions).
func (k ScriptKind) FeedName() string {
	switch k {
	case ScriptSproc:
		return "StoredProcedures"
	case ScriptTrigger:
		return "Triggers"
	default:
		return "UserDefinedFunctions"
	}
}

// ridNibble is the high nibble of the last RID byte marking the kind
// (reference §1.6).
func (k ScriptKind) ridNibble() byte {
	switch k {
	case ScriptSproc:
		return 0x80
	case ScriptTrigger:
		return 0x70
	default:
		return 0x60
	}
}

// ScriptRID returns the 16-byte RID of script number seq of kind k in the
// container collRID: the container part, seq little-endian in the next
// seven bytes, and the kind's nibble in the last byte.
func ScriptRID(collRID string, k ScriptKind, seq int64) string {
	cb, ok := DecodeRID(collRID)
	if !ok || len(cb) != 8 {
		cb = make([]byte, 8)
	}
	b := make([]byte, 16)
	copy(b, cb)
	binary.LittleEndian.PutUint64(b[8:], uint64(seq)&0x00ffffffffffffff)
	b[15] = k.ridNibble()
	return encodeRID(b)
}

// Script is a stored procedure, trigger or user-defined function.
type Script struct {
	Kind ScriptKind
	Seq  int64 // number; the RID derives from it
	ID   string
	RID  string
	// Props is the resource's JSON body without system properties: id,
	// body (the JavaScript source, verbatim) and, for triggers,
	// triggerType and triggerOperation in canonical spelling.
	Props []byte
	TS    int64
	ETag  string
}

// Self returns the script's _self link within container c.
func (s Script) Self(c Container) string {
	return c.Self() + string(s.Kind) + "/" + s.RID + "/"
}

// JSON renders the script with its system properties.
func (s Script) JSON(c Container) []byte {
	buf := appendOpenObject(make([]byte, 0, len(s.Props)+200), s.Props)
	buf = append(buf, `"_rid":`...)
	buf = AppendJSONString(buf, s.RID)
	buf = append(buf, `,"_self":`...)
	buf = AppendJSONString(buf, s.Self(c))
	buf = append(buf, `,"_etag":`...)
	buf = AppendJSONString(buf, s.ETag)
	buf = append(buf, `,"_ts":`...)
	buf = strconv.AppendInt(buf, s.TS, 10)
	return append(buf, '}')
}

// ScriptFields are the members of a script body the emulator interprets.
type ScriptFields struct {
	Body             string // JavaScript source
	TriggerType      string // "Pre" or "Post" (triggers)
	TriggerOperation string // canonical TriggerOperations value (triggers)
}

// Fields decodes the script's body and trigger members from Props.
func (s Script) Fields() (ScriptFields, error) {
	v, err := DecodeJSON(s.Props)
	if err != nil {
		return ScriptFields{}, fmt.Errorf("stored script %s: %w", s.ID, err)
	}
	obj, ok := v.(*Object)
	if !ok {
		return ScriptFields{}, fmt.Errorf("stored script %s: not an object", s.ID)
	}
	var f ScriptFields
	if b, ok := obj.Get("body"); ok {
		f.Body, _ = b.(string)
	}
	if b, ok := obj.Get("triggerType"); ok {
		f.TriggerType, _ = b.(string)
	}
	if b, ok := obj.Get("triggerOperation"); ok {
		f.TriggerOperation, _ = b.(string)
	}
	return f, nil
}

// TriggerTypes and TriggerOperations are the canonical spellings of the
// trigger members; requests name them case-insensitively.
var (
	TriggerTypes      = []string{"Pre", "Post"}
	TriggerOperations = []string{"All", "Create", "Update", "Delete", "Replace", "Upsert"}
)

// ScriptStore persists the scripts of containers. Scripts are addressed
// by id or RID (an id wins); missing ones are ErrResourceNotFound,
// duplicate ids ErrConflict, failed If-Match checks ErrPrecondition.
// Deleting a container deletes its scripts.
type ScriptStore interface {
	CreateScript(ctx context.Context, p WriteScriptParams) (Script, error)
	GetScript(ctx context.Context, c Container, kind ScriptKind, ref string) (Script, error)
	// ListScripts returns the container's scripts of a kind in creation
	// order.
	ListScripts(ctx context.Context, c Container, kind ScriptKind) ([]Script, error)
	// ReplaceScript replaces the script addressed by p.Ref, checking
	// p.IfMatch; the id may not change.
	ReplaceScript(ctx context.Context, p WriteScriptParams) (Script, error)
	DeleteScript(ctx context.Context, c Container, kind ScriptKind, ref, ifMatch string) error
}

// WriteScriptParams are the inputs of ScriptStore.CreateScript and
// ReplaceScript.
type WriteScriptParams struct {
	Container Container
	Kind      ScriptKind
	Ref       string // replace: the addressed script (id or RID)
	ID        string
	Props     []byte
	TS        int64
	ETag      string
	IfMatch   string // replace: "" for none
}

// scriptSystemProperties are dropped from script bodies on write.
var scriptSystemProperties = []string{"_rid", "_self", "_etag", "_ts"}

// canonical returns the member of names equal to v ignoring case.
func canonical(v any, names []string) (string, bool) {
	s, ok := v.(string)
	if !ok {
		return "", false
	}
	for _, n := range names {
		if strings.EqualFold(s, n) {
			return n, true
		}
	}
	return "", false
}

// prepareScript validates a script body of kind k: id (resource name
// rules), body (a string, stored verbatim and not compiled), and for
// triggers triggerType and triggerOperation, parsed case-insensitively
// and stored in canonical spelling.
func prepareScript(ctx context.Context, k ScriptKind, body []byte) (string, []byte, error) {
	obj, err := decodeObject(ctx, body)
	if err != nil {
		return "", nil, err
	}
	for _, p := range scriptSystemProperties {
		obj.Delete(p)
	}
	idv, _ := obj.Get("id")
	id, err := ValidateResourceName(idv)
	if err != nil {
		return "", nil, err
	}
	if b, ok := obj.Get("body"); !ok || b == nil {
		return "", nil, BadRequest("The input content is invalid because the required properties - 'body; ' - are missing")
	} else if _, ok := b.(string); !ok {
		return "", nil, BadRequest("The input content is invalid: the property 'body' must be a string holding the script's JavaScript source.")
	}
	if k == ScriptTrigger {
		for _, m := range []struct {
			name  string
			valid []string
		}{{"triggerType", TriggerTypes}, {"triggerOperation", TriggerOperations}} {
			v, ok := obj.Get(m.name)
			if !ok || v == nil {
				return "", nil, BadRequest("The input content is invalid because the required properties - '%s; ' - are missing", m.name)
			}
			c, ok := canonical(v, m.valid)
			if !ok {
				return "", nil, BadRequest("The value '%v' of the trigger property '%s' is invalid. Valid values are: %s.", v, m.name, strings.Join(m.valid, ", "))
			}
			obj.Set(m.name, c)
		}
	}
	return id, EncodeJSON(obj), nil
}

// scriptStore returns the service's store as a ScriptStore.
func (s *Service) scriptStore() ScriptStore { return s.store }

// CreateScript creates a script of kind k in a container from its JSON
// body (201; 409 when the id is taken).
func (s *Service) CreateScript(ctx context.Context, dbRef, collRef string, k ScriptKind, body []byte) (Container, Script, error) {
	return s.writeScript(ctx, dbRef, collRef, k, body, s.scriptStore().CreateScript, WriteScriptParams{})
}

// writeScript validates a script body and writes it with write; p holds
// the replace-only parameters.
func (s *Service) writeScript(ctx context.Context, dbRef, collRef string, k ScriptKind, body []byte,
	write func(context.Context, WriteScriptParams) (Script, error), p WriteScriptParams) (Container, Script, error) {
	c, err := s.store.GetContainer(ctx, dbRef, collRef)
	if err != nil {
		return c, Script{}, err
	}
	if p.ID, p.Props, err = prepareScript(ctx, k, body); err != nil {
		return c, Script{}, err
	}
	p.Container, p.Kind, p.TS = c, k, s.now()
	p.ETag = NewETag(p.TS)
	sc, err := write(ctx, p)
	return c, sc, err
}

// GetScript reads a script by id or RID.
func (s *Service) GetScript(ctx context.Context, dbRef, collRef string, k ScriptKind, ref string) (Container, Script, error) {
	c, err := s.store.GetContainer(ctx, dbRef, collRef)
	if err != nil {
		return c, Script{}, err
	}
	sc, err := s.scriptStore().GetScript(ctx, c, k, ref)
	return c, sc, err
}

// ReplaceScript replaces a script (200; 404; 412 when If-Match does not
// match; 400 when the body names another id). The new body takes effect
// on the next execution.
func (s *Service) ReplaceScript(ctx context.Context, dbRef, collRef string, k ScriptKind, ref string, body []byte, ifMatch string) (Container, Script, error) {
	return s.writeScript(ctx, dbRef, collRef, k, body, s.scriptStore().ReplaceScript, WriteScriptParams{Ref: ref, IfMatch: ifMatch})
}

// DeleteScript deletes a script (204; 404; 412).
func (s *Service) DeleteScript(ctx context.Context, dbRef, collRef string, k ScriptKind, ref, ifMatch string) error {
	c, err := s.store.GetContainer(ctx, dbRef, collRef)
	if err != nil {
		return err
	}
	return s.scriptStore().DeleteScript(ctx, c, k, ref, ifMatch)
}

// QueryScripts runs a query (a read feed is "SELECT * FROM root") over the
// container's scripts of kind k with the engine of every metadata query.
func (s *Service) QueryScripts(ctx context.Context, dbRef, collRef string, k ScriptKind, q Query, page PageRequest) (Container, QueryPage, error) {
	c, err := s.store.GetContainer(ctx, dbRef, collRef)
	if err != nil {
		return c, QueryPage{}, err
	}
	scripts, err := s.scriptStore().ListScripts(ctx, c, k)
	if err != nil {
		return c, QueryPage{}, err
	}
	docs := make([][]byte, len(scripts))
	for i, sc := range scripts {
		docs[i] = sc.JSON(c)
	}
	res, err := s.queryResources(ctx, docs, q, page)
	return c, res, err
}
