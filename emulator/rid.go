package emulator

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strings"
)

// Resource ids (_rid) follow the layout the SDKs parse (reference §1.6):
// base64 of big-endian bytes with '/' replaced by '-', always padded. Every
// value is URL-safe and contains no quote, so it is safe inside SQL string
// literals that the SDK builds (the offers query).

func encodeRID(b []byte) string {
	return strings.ReplaceAll(base64.StdEncoding.EncodeToString(b), "/", "-")
}

// DecodeRID reverses the RID encoding; ok is false for a malformed RID.
func DecodeRID(rid string) ([]byte, bool) {
	b, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(rid, "-", "/"))
	return b, err == nil
}

// DatabaseRID returns the 4-byte database RID for database number n.
func DatabaseRID(n int64) string {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], uint32(n))
	return encodeRID(b[:])
}

// ContainerRID returns the 8-byte container RID: the database part followed
// by the container number with the high bit of its first byte set (without
// it the SDKs would parse the RID as a user).
func ContainerRID(dbNum, collNum int64) string {
	var b [8]byte
	binary.BigEndian.PutUint32(b[:4], uint32(dbNum))
	binary.BigEndian.PutUint32(b[4:], uint32(collNum)|0x80000000)
	return encodeRID(b[:])
}

// DocumentRID returns the 16-byte RID of document number seq in the
// container collRID: the container part followed by seq little-endian, so
// DOCUMENTID() reads it back as seq.
func DocumentRID(collRID string, seq int64) string {
	cb, ok := DecodeRID(collRID)
	if !ok || len(cb) != 8 {
		cb = make([]byte, 8)
	}
	b := make([]byte, 16)
	copy(b, cb)
	binary.LittleEndian.PutUint64(b[8:], uint64(seq))
	return encodeRID(b)
}

// PartitionKeyRangeRID returns the RID of the partition key range with
// ridPrefix n of a container (last byte 0x50 marks a partition key range;
// n is in bytes 10-13, so range 0's RID is what it always was).
func PartitionKeyRangeRID(collRID string, n int) string {
	cb, ok := DecodeRID(collRID)
	if !ok || len(cb) != 8 {
		cb = make([]byte, 8)
	}
	b := make([]byte, 16)
	copy(b, cb)
	b[8] = 1
	binary.BigEndian.PutUint32(b[10:14], uint32(n))
	b[15] = 0x50
	return encodeRID(b)
}

// OfferRID returns the 3-byte (four character) offer RID for offer number n.
func OfferRID(n int64) string {
	b := []byte{byte(n >> 16), byte(n >> 8), byte(n)}
	return encodeRID(b)
}

// NewETag returns a fresh quoted etag in the service's format.
func NewETag(ts int64) string {
	var r [4]byte
	_, _ = rand.Read(r[:])
	return fmt.Sprintf("\"%08x-0000-0100-0000-%08x0000\"", binary.BigEndian.Uint32(r[:]), uint32(ts))
}
