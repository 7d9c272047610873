package emulator

import (
	"fmt"
	"strconv"
)

// Database is a stored database.
type Database struct {
	Num  int64 // internal number; the RID is derived from it
	ID   string
	RID  string
	TS   int64
	ETag string
}

// JSON renders the database as the service does.
func (d Database) JSON() []byte {
	buf := make([]byte, 0, 160)
	buf = append(buf, `{"id":`...)
	buf = AppendJSONString(buf, d.ID)
	buf = append(buf, `,"_rid":`...)
	buf = AppendJSONString(buf, d.RID)
	buf = append(buf, `,"_self":`...)
	buf = AppendJSONString(buf, "dbs/"+d.RID+"/")
	buf = append(buf, `,"_etag":`...)
	buf = AppendJSONString(buf, d.ETag)
	buf = append(buf, `,"_colls":"colls/","_users":"users/","_ts":`...)
	buf = strconv.AppendInt(buf, d.TS, 10)
	return append(buf, '}')
}

// Container is a stored container (a DocumentCollection).
type Container struct {
	Num         int64 // internal number; the RID and the items partition derive from it
	DatabaseNum int64
	DatabaseID  string
	DatabaseRID string
	ID          string
	RID         string
	// Properties is the container's JSON body as stored, without system
	// properties: partitionKey, indexingPolicy, defaultTtl, policies...
	Properties []byte
	// Def is Properties parsed (ParseContainerDefinition): the store sets
	// it on every container it returns, from the body it stores, so that
	// requests read policies without parsing. Shared and read-only; nil
	// only in a Container made by hand (Definition parses then).
	Def          *ContainerDefinition
	PartitionKey PartitionKeyDefinition
	// DefaultTTL is the defaultTtl property: nil when TTL is off.
	DefaultTTL *int32
	TS         int64
	ETag       string
	// Ranges are the container's live partition key ranges, sorted by
	// MinInclusive (they tile the EPK space); RangesVersion changes with
	// every split (the etag of GET .../pkranges) and NextRangeID is the id
	// the next range made will get (ids are never reused). The store
	// loads them with the container, so they cost a point operation
	// nothing.
	Ranges        []PartitionKeyRange
	RangesVersion int64
	NextRangeID   int
}

// Self returns the container's _self link.
func (c Container) Self() string { return "dbs/" + c.DatabaseRID + "/colls/" + c.RID + "/" }

// JSON renders the container with its system properties.
func (c Container) JSON() []byte {
	buf := appendOpenObject(make([]byte, 0, len(c.Properties)+256), c.Properties)
	buf = append(buf, `"_rid":`...)
	buf = AppendJSONString(buf, c.RID)
	buf = append(buf, `,"_ts":`...)
	buf = strconv.AppendInt(buf, c.TS, 10)
	buf = append(buf, `,"_self":`...)
	buf = AppendJSONString(buf, c.Self())
	buf = append(buf, `,"_etag":`...)
	buf = AppendJSONString(buf, c.ETag)
	buf = append(buf, `,"_docs":"docs/","_sprocs":"sprocs/","_triggers":"triggers/","_udfs":"udfs/","_conflicts":"conflicts/"}`...)
	return buf
}

// PartitionKeyRangeJSON renders live range r of the container as GET
// .../pkranges lists it. throughputFraction is 1/n for n live ranges: the
// service spreads a container's throughput evenly over its physical
// partitions, whatever their share of the hash space.
func (c Container) PartitionKeyRangeJSON(r PartitionKeyRange) []byte {
	rid := PartitionKeyRangeRID(c.RID, r.RIDPrefix)
	buf := make([]byte, 0, 400)
	buf = append(buf, `{"_rid":`...)
	buf = AppendJSONString(buf, rid)
	buf = append(buf, `,"id":`...)
	buf = AppendJSONString(buf, r.ID)
	buf = append(buf, `,"_etag":`...)
	buf = AppendJSONString(buf, fmt.Sprintf(`"%08x-0000-0100-0000-%08x0000"`, r.RIDPrefix, uint32(r.TS)))
	buf = append(buf, `,"minInclusive":`...)
	buf = AppendJSONString(buf, r.MinInclusive)
	buf = append(buf, `,"maxExclusive":`...)
	buf = AppendJSONString(buf, r.MaxExclusive)
	buf = append(buf, `,"ridPrefix":`...)
	buf = strconv.AppendInt(buf, int64(r.RIDPrefix), 10)
	buf = append(buf, `,"_self":`...)
	buf = AppendJSONString(buf, c.Self()+"pkranges/"+rid+"/")
	buf = append(buf, `,"throughputFraction":`...)
	buf = strconv.AppendFloat(buf, 1/float64(len(c.liveRanges())), 'g', -1, 64)
	buf = append(buf, `,"status":`...)
	buf = AppendJSONString(buf, r.Status)
	buf = append(buf, `,"parents":[`...)
	for i, p := range r.Parents {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = AppendJSONString(buf, p)
	}
	buf = append(buf, `],"ownedArchivalPKRangeIds":[],"_ts":`...)
	buf = strconv.AppendInt(buf, r.TS, 10)
	buf = append(buf, `,"lsn":`...)
	buf = strconv.AppendInt(buf, max(r.LSN, 1), 10)
	return append(buf, '}')
}

// LiveRanges returns the container's live partition key ranges in EPK
// order (the one range "0" for a Container built without any).
func (c Container) LiveRanges() []PartitionKeyRange { return c.liveRanges() }

// appendOpenObject appends the JSON object props without its closing
// brace, ready for more members: "{...," (or "{" for an empty object).
func appendOpenObject(buf, props []byte) []byte {
	if len(props) > 2 {
		buf = append(buf, props[:len(props)-1]...)
		return append(buf, ',')
	}
	return append(buf, '{')
}

// Offer is the throughput of a database or container.
type Offer struct {
	Num         int64
	RID         string
	ResourceRID string // offerResourceId: the database or container RID
	Resource    string // the owner's _self
	// Content is the offer's content member, as JSON.
	Content []byte
	TS      int64
	ETag    string
}

// JSON renders the offer as the service does.
func (o Offer) JSON() []byte {
	buf := make([]byte, 0, 320)
	buf = append(buf, `{"offerVersion":"V2","offerType":"Invalid","content":`...)
	buf = append(buf, o.Content...)
	buf = append(buf, `,"resource":`...)
	buf = AppendJSONString(buf, o.Resource)
	buf = append(buf, `,"offerResourceId":`...)
	buf = AppendJSONString(buf, o.ResourceRID)
	buf = append(buf, `,"id":`...)
	buf = AppendJSONString(buf, o.RID)
	buf = append(buf, `,"_rid":`...)
	buf = AppendJSONString(buf, o.RID)
	buf = append(buf, `,"_self":`...)
	buf = AppendJSONString(buf, "offers/"+o.RID+"/")
	buf = append(buf, `,"_etag":`...)
	buf = AppendJSONString(buf, o.ETag)
	buf = append(buf, `,"_ts":`...)
	buf = strconv.AppendInt(buf, o.TS, 10)
	return append(buf, '}')
}

// Item is a stored document.
type Item struct {
	ID string
	// PK is the canonical partition key (PartitionKey.Canonical).
	PK string
	// Seq is the document number: it orders items by creation and makes
	// the _rid. It is kept when the item is replaced.
	Seq int64
	// Body is the document as the client wrote it, compact, without system
	// properties.
	Body []byte
	TS   int64
	ETag string
	// LSN is the write's log sequence number (increases with every write).
	LSN int64
	// CurrentLSN, on a point read, is the latest LSN the store has issued:
	// the service's lsn header on a read is its partition's current LSN,
	// not the item's (x-ms-item-lsn). 0 when not known.
	CurrentLSN int64
}

// JSON renders the document with its system properties appended after the
// user's properties, in the service's order.
func (it Item) JSON(c Container) []byte {
	return it.AppendJSON(nil, c)
}

// AppendJSON appends the rendered document (see JSON) to buf.
func (it Item) AppendJSON(buf []byte, c Container) []byte {
	rid := DocumentRID(c.RID, it.Seq)
	body := it.Body
	if len(body) > 2 {
		buf = append(buf, body[:len(body)-1]...)
		buf = append(buf, ',')
	} else {
		buf = append(buf, '{')
	}
	buf = append(buf, `"_rid":`...)
	buf = AppendJSONString(buf, rid)
	buf = append(buf, `,"_self":`...)
	buf = AppendJSONString(buf, c.Self()+"docs/"+rid+"/")
	buf = append(buf, `,"_etag":`...)
	buf = AppendJSONString(buf, it.ETag)
	buf = append(buf, `,"_attachments":"attachments/","_ts":`...)
	buf = strconv.AppendInt(buf, it.TS, 10)
	return append(buf, '}')
}
