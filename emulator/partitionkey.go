package emulator

import (
	"encoding/json"
	"strconv"
	"strings"
)

// PartitionKeyDefinition is a container's partitionKey property.
type PartitionKeyDefinition struct {
	Paths   []string `json:"paths"`
	Kind    string   `json:"kind,omitempty"`
	Version int      `json:"version,omitempty"`
	// SystemKey marks the definition the service gives a container created
	// without one (API versions before 2018-12-31): SystemPartitionKey.
	SystemKey bool `json:"systemKey,omitempty"`
}

// SystemPartitionKey is the partition key definition of a container created
// without one through an API version that allowed it (before 2018-12-31):
// the service's system key /_partitionKey. Items without that property are
// in the undefined partition, which requests without a partition key
// header address.
var SystemPartitionKey = PartitionKeyDefinition{Paths: []string{"/_partitionKey"}, Kind: "Hash", SystemKey: true}

// undefinedValue is the type of Undefined.
type undefinedValue struct{}

// Undefined is the partition key component of an item that lacks the
// partition key property (the header form is {}). It differs from null.
var Undefined = undefinedValue{}

// PartitionKey is a partition key value: one component per path of the
// container's definition. Components are nil (JSON null), bool, float64,
// string or Undefined.
type PartitionKey []any

// CanonicalPrefix returns the beginning that the storage encodings of all
// keys starting with pk's components share, and only they: their
// canonical form up to and including the comma after the last of pk's
// components (a hierarchical key's prefix).
func (pk PartitionKey) CanonicalPrefix() string {
	c := pk.Canonical()
	return c[:len(c)-1] + ","
}

// Canonical returns the storage encoding of the key: a JSON array in which
// numbers are doubles in their shortest form and Undefined is {}. Two keys
// are the same logical partition exactly when their encodings are equal, so
// "1", 1, true, null and a missing key never collide, and 1 and 1.0 do.
func (pk PartitionKey) Canonical() string {
	buf := make([]byte, 0, 32)
	buf = append(buf, '[')
	for i, c := range pk {
		if i > 0 {
			buf = append(buf, ',')
		}
		switch v := c.(type) {
		case nil:
			buf = append(buf, "null"...)
		case bool:
			buf = strconv.AppendBool(buf, v)
		case float64:
			buf = AppendNumber(buf, v)
		case string:
			buf = AppendJSONString(buf, v)
		default:
			buf = append(buf, "{}"...)
		}
	}
	return string(append(buf, ']'))
}

// PartitionKeyFromJSON converts decoded JSON values (see DecodeJSON, or
// encoding/json's) into partition key components. Objects (the {} of the
// header) become Undefined; arrays are not valid components.
func PartitionKeyFromJSON(values []any) (PartitionKey, bool) {
	pk := make(PartitionKey, len(values))
	for i, v := range values {
		c, ok := pkComponent(v, true)
		if !ok {
			return nil, false
		}
		pk[i] = c
	}
	return pk, true
}

func pkComponent(v any, objectIsUndefined bool) (any, bool) {
	switch t := v.(type) {
	case nil, bool, string:
		return t, true
	case float64:
		return t, true
	case json.Number:
		f, err := t.Float64()
		if err != nil {
			return nil, false
		}
		return f, true
	case *Object:
		if objectIsUndefined && len(t.Members) == 0 {
			return Undefined, true
		}
		return nil, false
	case map[string]any:
		if objectIsUndefined && len(t) == 0 {
			return Undefined, true
		}
		return nil, false
	case undefinedValue:
		return Undefined, true
	default:
		return nil, false
	}
}

// SplitPath splits a partition key path such as /a/b or /"odd name"/c into
// its property names.
func SplitPath(path string) []string {
	path = strings.TrimPrefix(path, "/")
	if path == "" {
		return nil
	}
	var parts []string
	for path != "" {
		if path[0] == '"' {
			end := strings.IndexByte(path[1:], '"')
			if end >= 0 {
				parts = append(parts, path[1:1+end])
				path = strings.TrimPrefix(path[end+2:], "/")
				continue
			}
		}
		i := strings.IndexByte(path, '/')
		if i < 0 {
			parts = append(parts, path)
			break
		}
		parts = append(parts, path[:i])
		path = path[i+1:]
	}
	return parts
}

// ExtractPartitionKey reads the partition key of a document (a decoded
// *Object) for the given definition. A missing property, or one holding an
// object or array, is Undefined.
func ExtractPartitionKey(doc *Object, def PartitionKeyDefinition) PartitionKey {
	pk := make(PartitionKey, len(def.Paths))
	for i, p := range def.Paths {
		var cur any = doc
		found := true
		for _, name := range SplitPath(p) {
			obj, ok := cur.(*Object)
			if !ok {
				found = false
				break
			}
			if cur, ok = obj.Get(name); !ok {
				found = false
				break
			}
		}
		if !found {
			pk[i] = Undefined
			continue
		}
		c, ok := pkComponent(cur, false)
		if !ok {
			c = Undefined
		}
		pk[i] = c
	}
	return pk
}
