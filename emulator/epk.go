package emulator

import (
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/bits"
	"strings"
)

// The effective partition key (EPK) is where an item lives in the
// container's hash space: an upper-case hex string that SDKs compare
// ordinally with feed range and partition key range bounds
// (/work/shared/partitioning.md §2-§6). Version 1 definitions (no version)
// hash with MurmurHash3 x86 32-bit and append the order-preserving binary
// encoding of the components; version 2 with MurmurHash3 x64 128-bit;
// MultiHash (hierarchical keys) concatenates the version 2 hash of each
// component.

// EffectivePartitionKey returns the EPK of pk under def: "" for the empty
// key, otherwise the service's hash as upper-case hex.
func EffectivePartitionKey(def PartitionKeyDefinition, pk PartitionKey) string {
	if len(pk) == 0 {
		return ""
	}
	switch {
	case strings.EqualFold(def.Kind, "MultiHash"):
		var b strings.Builder
		for _, c := range pk {
			b.WriteString(epkV2(PartitionKey{c}))
		}
		return b.String()
	case strings.EqualFold(def.Kind, "Range"):
		var out []byte
		for _, c := range pk {
			out = appendBinaryComponent(out, c)
		}
		return strings.ToUpper(hex.EncodeToString(out))
	case def.Version == 2:
		return epkV2(pk)
	default:
		return epkV1(pk)
	}
}

// EPKInRange reports whether epk lies in [minInclusive, maxExclusive) by
// ordinal comparison; an empty maxExclusive means no upper bound.
func EPKInRange(epk, minInclusive, maxExclusive string) bool {
	return epk >= minInclusive && (maxExclusive == "" || epk < maxExclusive)
}

// truncateV1 cuts a string to its first 100 UTF-16 code units, as V1
// hashing does (a surrogate pair that straddles the cut is left out).
func truncateV1(s string) string {
	n := 0
	for i, r := range s {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if n+w > 100 {
			return s[:i]
		}
		n += w
	}
	return s
}

func appendHashComponent(out []byte, c any, v2 bool) []byte {
	switch v := c.(type) {
	case nil:
		return append(out, 0x01)
	case bool:
		if v {
			return append(out, 0x03)
		}
		return append(out, 0x02)
	case float64:
		out = append(out, 0x05)
		return binary.LittleEndian.AppendUint64(out, math.Float64bits(v))
	case string:
		out = append(out, 0x08)
		out = append(out, v...)
		if v2 {
			return append(out, 0xFF)
		}
		return append(out, 0x00)
	default: // Undefined
		return append(out, 0x00)
	}
}

// appendBinaryComponent appends the order-preserving binary encoding of a
// component (V1 EPK suffix and the legacy Range kind).
func appendBinaryComponent(out []byte, c any) []byte {
	switch v := c.(type) {
	case nil:
		return append(out, 0x01)
	case bool:
		if v {
			return append(out, 0x03)
		}
		return append(out, 0x02)
	case float64:
		return appendBinaryNumber(out, v)
	case string:
		out = append(out, 0x08)
		b := []byte(v)
		short := len(b) <= 100
		if !short {
			b = b[:101]
		}
		for _, x := range b {
			if x != 0xFF {
				x++
			}
			out = append(out, x)
		}
		if short {
			out = append(out, 0x00)
		}
		return out
	default:
		return append(out, 0x00)
	}
}

func appendBinaryNumber(out []byte, x float64) []byte {
	u := math.Float64bits(x)
	var p uint64
	if u < 1<<63 {
		p = u ^ (1 << 63)
	} else {
		p = ^u + 1
	}
	out = append(out, 0x05, byte(p>>56))
	p <<= 8
	for {
		b := byte(p>>56) | 0x01
		p <<= 7
		if p == 0 {
			return append(out, b&0xFE)
		}
		out = append(out, b)
	}
}

func epkV1(pk PartitionKey) string {
	t := make(PartitionKey, len(pk))
	var hb []byte
	for i, c := range pk {
		if s, ok := c.(string); ok {
			c = truncateV1(s)
		}
		t[i] = c
		hb = appendHashComponent(hb, c, false)
	}
	out := appendBinaryNumber(nil, float64(murmur3x86_32(hb, 0)))
	for _, c := range t {
		out = appendBinaryComponent(out, c)
	}
	return strings.ToUpper(hex.EncodeToString(out))
}

func epkV2(pk PartitionKey) string {
	var hb []byte
	for _, c := range pk {
		hb = appendHashComponent(hb, c, true)
	}
	h1, h2 := murmur3x64_128(hb, 0)
	out := make([]byte, 16)
	binary.BigEndian.PutUint64(out, h2)
	binary.BigEndian.PutUint64(out[8:], h1)
	out[0] &= 0x3F
	return strings.ToUpper(hex.EncodeToString(out))
}

// murmur3x86_32 is the standard MurmurHash3 x86 32-bit hash.
func murmur3x86_32(data []byte, seed uint32) uint32 {
	const c1, c2 = 0xcc9e2d51, 0x1b873593
	h := seed
	n := len(data) / 4
	for i := 0; i < n; i++ {
		k := binary.LittleEndian.Uint32(data[i*4:])
		k *= c1
		k = bits.RotateLeft32(k, 15)
		k *= c2
		h ^= k
		h = bits.RotateLeft32(h, 13)
		h = h*5 + 0xe6546b64
	}
	tail := data[n*4:]
	var k uint32
	switch len(tail) {
	case 3:
		k ^= uint32(tail[2]) << 16
		fallthrough
	case 2:
		k ^= uint32(tail[1]) << 8
		fallthrough
	case 1:
		k ^= uint32(tail[0])
		k *= c1
		k = bits.RotateLeft32(k, 15)
		k *= c2
		h ^= k
	}
	h ^= uint32(len(data))
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

func fmix64(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}

// murmur3x64_128 is the standard MurmurHash3 x64 128-bit hash (h1, h2).
func murmur3x64_128(data []byte, seed uint64) (uint64, uint64) {
	const c1, c2 = 0x87c37b91114253d5, 0x4cf5ad432745937f
	h1, h2 := seed, seed
	n := len(data) / 16
	for i := 0; i < n; i++ {
		k1 := binary.LittleEndian.Uint64(data[i*16:])
		k2 := binary.LittleEndian.Uint64(data[i*16+8:])
		k1 *= c1
		k1 = bits.RotateLeft64(k1, 31)
		k1 *= c2
		h1 ^= k1
		h1 = bits.RotateLeft64(h1, 27)
		h1 += h2
		h1 = h1*5 + 0x52dce729
		k2 *= c2
		k2 = bits.RotateLeft64(k2, 33)
		k2 *= c1
		h2 ^= k2
		h2 = bits.RotateLeft64(h2, 31)
		h2 += h1
		h2 = h2*5 + 0x38495ab5
	}
	tail := data[n*16:]
	var k1, k2 uint64
	for i := len(tail) - 1; i >= 8; i-- {
		k2 ^= uint64(tail[i]) << (uint(i-8) * 8)
	}
	if len(tail) > 8 {
		k2 *= c2
		k2 = bits.RotateLeft64(k2, 33)
		k2 *= c1
		h2 ^= k2
	}
	for i := min(len(tail), 8) - 1; i >= 0; i-- {
		k1 ^= uint64(tail[i]) << (uint(i) * 8)
	}
	if len(tail) > 0 {
		k1 *= c1
		k1 = bits.RotateLeft64(k1, 31)
		k1 *= c2
		h1 ^= k1
	}
	h1 ^= uint64(len(data))
	h2 ^= uint64(len(data))
	h1 += h2
	h2 += h1
	h1 = fmix64(h1)
	h2 = fmix64(h2)
	h1 += h2
	h2 += h1
	return h1, h2
}

// EPKRange is a half-open interval [Min, Max) of effective partition keys,
// compared ordinally as upper-case hex strings: Min "" is the start of the
// space and Max "FF" (or "") its end. A request confined to a partition key
// range, or to a sub-range of one (x-ms-start-epk/x-ms-end-epk), carries
// one; the store keeps only the items whose EPK lies in it.
type EPKRange struct {
	Min, Max string
}

// Full reports whether r covers the whole EPK space (no filter needed).
func (r EPKRange) Full() bool {
	return r.Min == "" && (r.Max == "" || strings.EqualFold(r.Max, "FF"))
}

// Contains reports whether epk lies in r.
func (r EPKRange) Contains(epk string) bool {
	max := r.Max
	if strings.EqualFold(max, "FF") {
		max = ""
	}
	return EPKInRange(epk, r.Min, max)
}
