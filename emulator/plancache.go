package emulator

import "encoding/json"

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
	params := make(map[string]json.RawMessage, len(q.Parameters))
	for _, p := range q.Parameters {
		params[p.Name] = p.Value
	}
	var k CacheKey
	k.Grow(n)
	k.Int(c.Num)
	k.Field(c.RID)
	k.Int(c.RangesVersion)
	k.Field(q.Text)
	k.Field(features)
	k.Params(params)
	return k.String(), true
}
