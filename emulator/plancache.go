package emulator

import (
	"slices"
	"strconv"
	"strings"
)

// The plan cache keeps the query plans QueryPlan answers, so that a plan
// asked for again (the SDKs ask before every query they run through their
// pipeline) is not computed again. It is exact: the key holds every input
// of the plan (the container, its partition key ranges version, the query
// text, its parameters and the supported query features), and the
// container definition is part of the key by identity, as the store hands out a
// new one whenever a container is created, replaced or loaded again
// (Container.Def): a replaced container's plans are never served (the
// entry keeps its definition alive, so its address cannot be reused).
// Only plans are kept, not refusals.

// Bounds of the plan cache: entries, and the largest key and plan it
// keeps.
const (
	planCacheSize = 256
	maxPlanKey    = 8 << 10
	maxCachedPlan = 32 << 10
)

// planKey is a plan cache key: the container definition and the other
// inputs of the plan (planInputs).
type planKey struct {
	def    *ContainerDefinition
	inputs string
}

// planInputs is the plan cache key, but for the container definition, of
// the plan of q over c with features; false when it is too long to keep.
func planInputs(c Container, q Query, features string) (string, bool) {
	n := len(q.Text) + len(features) + len(c.RID) + 64
	for _, p := range q.Parameters {
		n += len(p.Name) + len(p.Value) + 16
	}
	if n > maxPlanKey {
		return "", false
	}
	// the parameters as the plan sees them: by name, the last of a
	// repeated name winning
	params := make(map[string][]byte, len(q.Parameters))
	for _, p := range q.Parameters {
		params[p.Name] = p.Value
	}
	names := make([]string, 0, len(params))
	for name := range params {
		names = append(names, name)
	}
	slices.Sort(names)
	var b strings.Builder
	b.Grow(n)
	field := func(s string) {
		b.WriteString(strconv.Itoa(len(s)))
		b.WriteByte(':')
		b.WriteString(s)
	}
	field(strconv.FormatInt(c.Num, 10))
	field(c.RID)
	field(strconv.FormatInt(c.RangesVersion, 10))
	field(q.Text)
	field(features)
	field(strconv.Itoa(len(names)))
	for _, name := range names {
		field(name)
		if v := params[name]; v == nil {
			b.WriteByte('-') // undefined
		} else {
			b.WriteByte('+')
			field(string(v))
		}
	}
	return b.String(), true
}
