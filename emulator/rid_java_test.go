package emulator

import (
	"encoding/base64"
	"encoding/binary"
	"strings"
	"testing"
)

// javaResourceID is what the Java SDK's ResourceId.tryParse (azure-cosmos
// 4.81.0, com.azure.cosmos.implementation.ResourceId) reads from a RID, for
// the levels checked here.
type javaResourceID struct {
	database, collection, user int32
	document                   int64
}

// javaTryParse is a port of ResourceId.tryParse for database, container
// and document RIDs: padded base64 with '-' for '/', at most 20 bytes, a
// length divisible by 4; bytes 0-3 the database (big-endian); bytes 4-7 a
// container when their high bit is set, else a user; bytes 8-15 a
// document when the high nibble of byte 15 is 0 (CollectionChildResourceType.Document).
func javaTryParse(id string) (javaResourceID, bool) {
	var r javaResourceID
	if id == "" || len(id)%4 != 0 {
		return r, false
	}
	b, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(id, "-", "/"))
	if err != nil || len(b) > 20 || len(b)%4 != 0 {
		return r, false
	}
	if len(b) >= 4 {
		r.database = int32(binary.BigEndian.Uint32(b))
	}
	if len(b) >= 8 {
		if b[4]&0x80 != 0 {
			r.collection = int32(binary.BigEndian.Uint32(b[4:]))
			if len(b) >= 16 {
				if b[15]>>4 != 0 {
					return r, false // another child type: not checked here
				}
				r.document = int64(binary.BigEndian.Uint64(b[8:]))
			} else if len(b) != 8 {
				return r, false
			}
		} else {
			r.user = int32(binary.BigEndian.Uint32(b[4:]))
			if len(b) != 8 && len(b) != 16 {
				return r, false
			}
		}
	}
	return r, true
}

// TestRIDsParseAsJavaResourceIDs: direct mode hands database and container
// RIDs to the Java SDK, which takes them apart with ResourceId.parse
// (PathsHelper.generatePath for $resolveFor; RntbdRequestHeaders'
// ResourceId token): each must parse, a database RID as a database
// (isDatabaseId: database set, no collection or user), a container RID as
// a container of that database, a document RID as a document of it.
func TestRIDsParseAsJavaResourceIDs(t *testing.T) {
	for _, tt := range []struct {
		name        string
		db, coll    int64
		wantDB      int32
		wantColl    uint32
		wantDocFrom int64
	}{
		{"first", 1, 1, 1, 0x80000001, 1},
		{"large numbers", 70000, 123456, 70000, 123456 | 0x80000000, 99},
		{"max", 0x7fffffff, 0x7fffffff, 0x7fffffff, 0xffffffff, 1 << 40},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dbRID := DatabaseRID(tt.db)
			d, ok := javaTryParse(dbRID)
			if !ok || d.database != tt.wantDB || d.database == 0 || d.collection != 0 || d.user != 0 {
				t.Fatalf("database RID %q parses as %+v (ok %v)", dbRID, d, ok)
			}
			collRID := ContainerRID(tt.db, tt.coll)
			c, ok := javaTryParse(collRID)
			if !ok || c.database != tt.wantDB || uint32(c.collection) != tt.wantColl || c.user != 0 {
				t.Fatalf("container RID %q parses as %+v (ok %v)", collRID, c, ok)
			}
			docRID := DocumentRID(collRID, tt.wantDocFrom)
			doc, ok := javaTryParse(docRID)
			if !ok || doc.database != tt.wantDB || uint32(doc.collection) != tt.wantColl || doc.document == 0 {
				t.Fatalf("document RID %q parses as %+v (ok %v)", docRID, doc, ok)
			}
		})
	}
}
