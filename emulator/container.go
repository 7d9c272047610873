package emulator

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Limits of container bodies, each the service's (reference §4). Nothing
// else about a container body is refused unless the service is known to
// refuse it (a doc or an SDK test that expects the refusal), or an SDK's
// model of the body could not read the member back (a member of the wrong
// JSON type): when in doubt a body is accepted and stored as sent.
const (
	// MaxPolicyPaths is the most included (and the most excluded) paths of
	// an indexing policy; it also bounds every other list of a container
	// body that has no documented limit of its own.
	MaxPolicyPaths = 1500
	// MaxCompositeIndexes is the most composite indexes of a policy.
	MaxCompositeIndexes = 100
	// MaxCompositeIndexPaths is the most paths of one composite index.
	MaxCompositeIndexPaths = 8
	// MaxUniqueKeys is the most unique keys of a container.
	MaxUniqueKeys = 10
	// MaxUniqueKeyPaths is the most paths of one unique key.
	MaxUniqueKeyPaths = 16
	// MaxPolicyPathDepth is the most labels of a path: the service's
	// document nesting depth (reference §4), below which no path can
	// address anything.
	MaxPolicyPathDepth = 128
)

// etagExcludedPath is the system path every indexing policy that indexes
// anything excludes.
const etagExcludedPath = `/"_etag"/?`

// pathKind is the grammar a path of a container body follows.
type pathKind int

const (
	// propertyPath names one property: /a, /a/b, /"odd label"/c. Partition
	// keys, unique keys, composite, vector and full-text indexes use it.
	propertyPath pathKind = iota
	// indexPath is an included, excluded or spatial path: labels, quoted
	// labels or [] (any array element), ending in /? (the scalar at the
	// path) or /* (everything below it, /* alone being the root).
	indexPath
	// indexingPath is an included or excluded path: an indexPath, or the
	// legacy root "/" (LegacyRootPath).
	indexingPath
)

// LegacyRootPath is the root path of the indexing policies of API
// versions before /* existed: {"path":"/","indexes":[...]}. The service
// and Microsoft's emulator still accept it in includedPaths and
// excludedPaths, and SDK test suites still send it (the JS SDK's
// cross-partition, aggregate and spatial specs create their containers
// with it), so it is stored as sent and served as /* is.
const LegacyRootPath = "/"

// pathFailure returns the position, in UTF-16 code units as the service
// counts, at which path stops following the grammar of kind, or -1 when it
// is valid. An unquoted label holds letters, digits and '_'; other
// characters must be inside a quoted label ("a-b"), which may hold anything
// but '"', '\' and control characters.
func pathFailure(path string, kind pathKind) int {
	if kind == indexingPath {
		if path == LegacyRootPath {
			return -1
		}
		kind = indexPath
	}
	if !utf8.ValidString(path) {
		for i, r := range path {
			if r == utf8.RuneError {
				return utf16Len(path[:i])
			}
		}
	}
	if path == "" || path[0] != '/' {
		return 0
	}
	i, labels := 1, 0
	for {
		// i is just after a '/'
		if i == len(path) {
			return utf16Len(path) // a trailing slash or nothing after the last one
		}
		if kind == indexPath && (path[i] == '?' || path[i] == '*') {
			if i+1 != len(path) || (path[i] == '?' && labels == 0) {
				return utf16Len(path[:i+1])
			}
			return -1
		}
		if labels++; labels > MaxPolicyPathDepth {
			return utf16Len(path[:i])
		}
		end, ok := labelEnd(path, i, kind)
		if !ok {
			return utf16Len(path[:end])
		}
		if end == len(path) {
			if kind == indexPath || path[i] == '[' {
				return utf16Len(path)
			}
			return -1
		}
		if path[end] != '/' {
			return utf16Len(path[:end])
		}
		i = end + 1
	}
}

// labelEnd scans the label starting at path[i] and returns the index just
// after it, or the index of the offending byte and false.
func labelEnd(path string, i int, kind pathKind) (int, bool) {
	switch path[i] {
	case '"':
		j := i + 1
		for j < len(path) {
			r, size := utf8.DecodeRuneInString(path[j:])
			switch {
			case r == '"':
				if j == i+1 {
					return j, false // an empty quoted label
				}
				return j + 1, true
			case r == '\\' || unicode.IsControl(r):
				return j, false
			}
			j += size
		}
		return j, false // not terminated
	case '[':
		if kind != indexPath || !strings.HasPrefix(path[i:], "[]") {
			return i, false
		}
		return i + 2, true
	}
	j := i
	for j < len(path) {
		r, size := utf8.DecodeRuneInString(path[j:])
		if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		j += size
	}
	return j, j > i
}

// utf16Len is the length of s in UTF-16 code units.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// checkPath validates one path of a container body; what names the policy
// for the error message ("indexing", "composite index", ...).
func checkPath(path string, kind pathKind, what string) error {
	pos := pathFailure(path, kind)
	if pos < 0 {
		return nil
	}
	if what == "indexing" {
		return BadRequest("The indexing path '%s' could not be accepted, failed near position '%d'. Please ensure that the path is a valid path. Common errors include invalid characters or absence of quotes around labels.", path, pos)
	}
	return BadRequest("The %s path '%s' could not be accepted, failed near position '%d'. Please ensure that the path is a valid path. Common errors include invalid characters or absence of quotes around labels.", what, path, pos)
}

// parsePartitionKey validates the partitionKey member of a container body:
// kind Hash (one path) or MultiHash (up to 3), version 1 or 2 when present,
// every path a property path.
func parsePartitionKey(obj *Object) (PartitionKeyDefinition, error) {
	var def PartitionKeyDefinition
	pkv, ok := obj.Get("partitionKey")
	if !ok || pkv == nil {
		return def, BadRequest("The partition key definition is missing. Containers must be created with a partitionKey, e.g. {\"paths\":[\"/pk\"],\"kind\":\"Hash\"}.")
	}
	pko, ok := pkv.(*Object)
	if !ok {
		return def, BadRequest("The partition key definition is invalid: it must be a JSON object.")
	}
	if v, ok := pko.Get("version"); ok && v != nil {
		if n, ok := v.(json.Number); !ok || (n != "1" && n != "2") {
			return def, BadRequest("The partition key definition version '%s' is invalid. Supported versions are 1 and 2.", ttlText(v))
		}
	}
	if err := json.Unmarshal(EncodeJSON(pkv), &def); err != nil {
		return def, BadRequest("The partition key definition is invalid: %v", err)
	}
	if def.Kind == "" {
		def.Kind = "Hash"
		if len(def.Paths) > 1 {
			def.Kind = "MultiHash"
		}
	}
	switch {
	case def.Kind != "Hash" && def.Kind != "MultiHash":
		return def, BadRequest("The 'kind' value '%s' specified in the partition key definition is invalid. Supported values are 'Hash' and 'MultiHash'.", def.Kind)
	case len(def.Paths) == 0:
		return def, BadRequest("The partition key definition must have at least one path.")
	case def.Kind == "Hash" && len(def.Paths) != 1:
		return def, BadRequest("A partition key definition of kind 'Hash' must have exactly one path; use 'MultiHash' for hierarchical partition keys.")
	case len(def.Paths) > 3:
		return def, BadRequest("A hierarchical partition key may have at most 3 paths.")
	}
	for _, p := range def.Paths {
		if pos := pathFailure(p, propertyPath); pos >= 0 {
			return def, BadRequest("The partition key component definition path '%s' could not be accepted, failed near position '%d'. Partition key paths must contain only valid characters and not contain a trailing slash or wildcard character.", p, pos)
		}
	}
	return def, nil
}

// listMember returns the array member key of o (nil when absent or null),
// refusing other types and more than max elements.
func listMember(o *Object, key string, max int) ([]any, bool, error) {
	v, ok := o.Get(key)
	if !ok || v == nil {
		return nil, false, nil
	}
	a, ok := v.([]any)
	if !ok {
		return nil, false, BadRequest("The '%s' member must be a JSON array.", key)
	}
	if len(a) > max {
		return nil, false, BadRequest("The '%s' member has %d entries; at most %d are allowed.", key, len(a), max)
	}
	return a, true, nil
}

// nestedList returns the array member listKey of the object member objKey
// of o (nil when either is absent or null), refusing other types and more
// than max elements.
func nestedList(o *Object, objKey, listKey string, max int) ([]any, error) {
	m, err := objectMember(o, objKey)
	if err != nil || m == nil {
		return nil, err
	}
	list, _, err := listMember(m, listKey, max)
	return list, err
}

// objectMember returns the object member key of o (nil when absent or
// null), refusing other types.
func objectMember(o *Object, key string) (*Object, error) {
	v, ok := o.Get(key)
	if !ok || v == nil {
		return nil, nil
	}
	m, ok := v.(*Object)
	if !ok {
		return nil, BadRequest("The '%s' member must be a JSON object.", key)
	}
	return m, nil
}

// entryPaths checks that every entry of list is an object whose member
// "path" is a valid path of kind, and returns the paths.
func entryPaths(list []any, key string, kind pathKind, what string) ([]string, error) {
	paths := make([]string, 0, len(list))
	for _, e := range list {
		o, ok := e.(*Object)
		if !ok {
			return nil, BadRequest("Every entry of '%s' must be a JSON object with a 'path'.", key)
		}
		pv, _ := o.Get("path")
		p, ok := pv.(string)
		if !ok {
			return nil, BadRequest("Every entry of '%s' must have a string 'path'.", key)
		}
		if err := checkPath(p, kind, what); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// pathObject returns {"path": p}.
func pathObject(p string) *Object {
	o := &Object{}
	o.Set("path", p)
	return o
}

// normalizeIndexingPolicy validates the indexingPolicy member of a
// container body and fills in what the service fills in: mode consistent,
// automatic true, /* included unless the root is excluded, and the system
// path /"_etag"/? excluded (a policy in mode none indexes nothing: both
// lists are empty unless sent). The policy is rebuilt in the service's
// member order; everything else is kept as sent (the legacy indexes
// arrays, enum values in any case). ttlOn reports a defaultTtl in the same
// body: mode none cannot go with it.
func normalizeIndexingPolicy(obj *Object, ttlOn bool) (*Object, error) {
	ip, err := objectMember(obj, "indexingPolicy")
	if err != nil {
		return nil, BadRequest("The indexingPolicy must be a JSON object.")
	}
	if ip == nil {
		ip = &Object{}
	}
	var mode any = "consistent"
	if v, ok := ip.Get("indexingMode"); ok && v != nil {
		s, ok := v.(string)
		if !ok {
			// the SDKs model it as a string (azcosmos IndexingMode,
			// @azure/cosmos IndexingMode): another type cannot be read back
			return nil, BadRequest("The indexing mode '%s' is invalid. Supported values are 'consistent', 'lazy' and 'none'.", ttlText(v))
		}
		switch m := strings.ToLower(s); m {
		case "consistent", "lazy", "none":
			// the service returns the mode lower-case whatever the case
			// sent (reference §1.5.3, recorded: "Consistent" reads back
			// as "consistent")
			mode = m
		default:
			// no known refusal: kept as sent, indexed as consistent
			mode = s
		}
	}
	none := mode == "none"
	automatic := !none
	if v, ok := ip.Get("automatic"); ok && v != nil {
		b, ok := v.(bool)
		if !ok {
			return nil, BadRequest("The indexing policy member 'automatic' must be true or false.")
		}
		automatic = b
	}
	if none && automatic {
		// the service's refusal (the SDKs' tests that run against the
		// service switch to mode none with automatic false: azcosmos
		// emulator_cosmos_container_test.go and example_test.go)
		return nil, BadRequest("Indexing mode value cannot be 'none' when automatic indexing is specified as 'true'.")
	}
	if none && ttlOn {
		// the service's refusal, reference §5.6 (azure-docs#29213)
		return nil, BadRequest("Indexing mode value cannot be 'none' when 'defaultTtl' is specified in the collection")
	}
	included, incSent, err := listMember(ip, "includedPaths", MaxPolicyPaths)
	if err != nil {
		return nil, err
	}
	excluded, _, err := listMember(ip, "excludedPaths", MaxPolicyPaths)
	if err != nil {
		return nil, err
	}
	if _, err := entryPaths(included, "includedPaths", indexingPath, "indexing"); err != nil {
		return nil, err
	}
	exPaths, err := entryPaths(excluded, "excludedPaths", indexingPath, "indexing")
	if err != nil {
		return nil, err
	}
	if included == nil {
		included = []any{}
	}
	if excluded == nil {
		excluded = []any{}
	}
	if !none {
		rootExcluded, etag := false, false
		for _, p := range exPaths {
			rootExcluded = rootExcluded || p == "/*" || p == LegacyRootPath
			etag = etag || p == etagExcludedPath || p == "/_etag/?"
		}
		if !incSent && !rootExcluded {
			included = []any{pathObject("/*")}
		}
		if !etag {
			excluded = append(excluded, pathObject(etagExcludedPath))
		}
	}
	if err := checkSecondaryIndexes(ip); err != nil {
		return nil, err
	}
	out := &Object{}
	out.Set("indexingMode", mode)
	out.Set("automatic", automatic)
	out.Set("includedPaths", included)
	out.Set("excludedPaths", excluded)
	for _, m := range ip.Members {
		switch m.Key {
		case "indexingMode", "automatic", "includedPaths", "excludedPaths":
		default:
			out.Set(m.Key, m.Value)
		}
	}
	obj.Set("indexingPolicy", out)
	return out, nil
}

// checkSecondaryIndexes validates the composite, spatial, vector and
// full-text indexes of an indexing policy.
func checkSecondaryIndexes(ip *Object) error {
	composites, _, err := listMember(ip, "compositeIndexes", MaxCompositeIndexes)
	if err != nil {
		return err
	}
	for _, c := range composites {
		paths, ok := c.([]any)
		if !ok {
			return BadRequest("Every entry of 'compositeIndexes' must be a JSON array of paths.")
		}
		if len(paths) > MaxCompositeIndexPaths {
			return BadRequest("A composite index has %d paths; at most %d are allowed.", len(paths), MaxCompositeIndexPaths)
		}
		if _, err := entryPaths(paths, "compositeIndexes", propertyPath, "composite index"); err != nil {
			return err
		}
		for _, e := range paths {
			// any string is kept as sent ("Ascending", "DESCENDING"...;
			// descending in any case sorts down, anything else up)
			if v, ok := e.(*Object).Get("order"); ok && v != nil {
				if _, ok := v.(string); !ok {
					return BadRequest("The composite index order '%s' is invalid. Supported values are 'ascending' and 'descending'.", ttlText(v))
				}
			}
		}
	}
	spatial, _, err := listMember(ip, "spatialIndexes", MaxPolicyPaths)
	if err != nil {
		return err
	}
	if _, err := entryPaths(spatial, "spatialIndexes", indexPath, "indexing"); err != nil {
		return err
	}
	for _, e := range spatial {
		if v, ok := e.(*Object).Get("types"); ok && v != nil {
			types, ok := v.([]any)
			if !ok {
				return BadRequest("The 'types' of a spatial index must be a JSON array.")
			}
			for _, t := range types {
				if _, ok := t.(string); !ok {
					return BadRequest("The 'types' of a spatial index must be strings such as 'Point' or 'Polygon'.")
				}
			}
		}
	}
	for _, key := range []string{"vectorIndexes", "fullTextIndexes"} {
		list, _, err := listMember(ip, key, MaxPolicyPaths)
		if err != nil {
			return err
		}
		what := "vector index"
		if key == "fullTextIndexes" {
			what = "full text index"
		}
		if _, err := entryPaths(list, key, propertyPath, what); err != nil {
			return err
		}
	}
	return nil
}

// checkContainerPolicies validates the policies of a container body other
// than the indexing policy: unique keys, vector embeddings (and that every
// vector index has one), full-text paths and the conflict resolution path.
func checkContainerPolicies(obj, ip *Object) error {
	keys, err := nestedList(obj, "uniqueKeyPolicy", "uniqueKeys", MaxUniqueKeys)
	if err != nil {
		return err
	}
	for _, k := range keys {
		ko, ok := k.(*Object)
		if !ok {
			return BadRequest("Every unique key must be a JSON object with 'paths'.")
		}
		// a unique key without paths constrains nothing: no known refusal
		paths, _, err := listMember(ko, "paths", MaxPolicyPaths)
		if err != nil {
			return err
		}
		if len(paths) > MaxUniqueKeyPaths {
			return BadRequest("A unique key has %d paths; at most %d are allowed.", len(paths), MaxUniqueKeyPaths)
		}
		for _, p := range paths {
			s, ok := p.(string)
			if !ok {
				return BadRequest("The paths of a unique key must be strings.")
			}
			if err := checkPath(s, propertyPath, "unique key"); err != nil {
				return err
			}
		}
	}
	embeddings := map[string]bool{}
	list, err := nestedList(obj, "vectorEmbeddingPolicy", "vectorEmbeddings", MaxPolicyPaths)
	if err != nil {
		return err
	}
	paths, err := entryPaths(list, "vectorEmbeddings", propertyPath, "vector embedding")
	if err != nil {
		return err
	}
	for i, e := range list {
		if err := checkVectorEmbedding(e.(*Object)); err != nil {
			return err
		}
		embeddings[paths[i]] = true
	}
	vectorIndexes, _, _ := listMember(ip, "vectorIndexes", MaxPolicyPaths)
	for _, e := range vectorIndexes {
		p, _ := e.(*Object).Get("path")
		if !embeddings[p.(string)] {
			// the service's text quotes the path as its JSON writer does,
			// with '/' escaped: path::\/vector1 (the JS SDK's container
			// spec compares it)
			return BadRequest("The Vector Indexing Policy's path::%s not matching in Embedding's path.", strings.ReplaceAll(p.(string), "/", `\/`))
		}
	}
	if list, err = nestedList(obj, "fullTextPolicy", "fullTextPaths", MaxPolicyPaths); err != nil {
		return err
	}
	ftPaths, err := entryPaths(list, "fullTextPaths", propertyPath, "full text")
	if err != nil {
		return err
	}
	declared := map[string]bool{}
	for _, p := range ftPaths {
		declared[p] = true
	}
	ftIndexes, _, _ := listMember(ip, "fullTextIndexes", MaxPolicyPaths)
	for _, e := range ftIndexes {
		// a full-text index path must be a path of the full-text policy
		// (reference search §A1.2, from the index-policy page; the
		// service's wording is not recorded, this one follows the vector
		// index's)
		p, _ := e.(*Object).Get("path")
		if !declared[p.(string)] {
			return BadRequest("The Full Text Indexing Policy's path::%s not matching in Full Text Policy's path.", strings.ReplaceAll(p.(string), "/", `\/`))
		}
	}
	if err := checkChangeFeedPolicy(obj); err != nil {
		return err
	}
	if crp, err := objectMember(obj, "conflictResolutionPolicy"); err != nil {
		return err
	} else if crp != nil {
		if v, ok := crp.Get("conflictResolutionPath"); ok && v != nil && v != "" {
			p, ok := v.(string)
			if !ok {
				return BadRequest("The conflictResolutionPath must be a string.")
			}
			if err := checkPath(p, propertyPath, "conflict resolution"); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkVectorEmbedding checks the types of one vector embedding's
// distance function and dimensions (the path is checked by the caller):
// any string is kept as a distance function (an unknown one makes
// VectorDistance undefined) and any int32 as dimensions (what the SDKs'
// models read back: azcosmos VectorEmbedding.Dimensions is an int32); the
// service is not known to refuse other values.
func checkVectorEmbedding(e *Object) error {
	if v, ok := e.Get("distanceFunction"); ok && v != nil {
		if _, ok := v.(string); !ok {
			return BadRequest("The vector embedding distanceFunction '%s' is invalid. Supported values are 'cosine', 'dotproduct' and 'euclidean'.", ttlText(v))
		}
	}
	if v, ok := e.Get("dimensions"); ok && v != nil {
		n, _ := v.(json.Number)
		if _, err := strconv.ParseInt(string(n), 10, 32); err != nil {
			return BadRequest("The vector embedding dimensions '%s' are invalid: an integer is required.", ttlText(v))
		}
	}
	return nil
}

// checkVectorPoliciesUnchanged refuses a replace that changes the vector
// indexes or the vector embeddings of container cur.
func checkVectorPoliciesUnchanged(cur, next *Object) error {
	if !sameMember(cur, next, "indexingPolicy", "vectorIndexes") {
		return BadRequest("The Vector Indexing Policy cannot be changed in Collection Replace.")
	}
	if !sameMember(cur, next, "vectorEmbeddingPolicy", "vectorEmbeddings") {
		return BadRequest("Paths in existing embedding policy cannot be modified in Collection Replace.")
	}
	return nil
}

// sameMember reports whether the member at path (object keys) is the same
// JSON value in a and b, member order aside; absent, null and [] are the
// same.
func sameMember(a, b *Object, path ...string) bool {
	get := func(o *Object) any {
		var v any = o
		for _, k := range path {
			obj, ok := v.(*Object)
			if !ok {
				return nil
			}
			v, _ = obj.Get(k)
		}
		if l, ok := v.([]any); ok && len(l) == 0 {
			return nil
		}
		if v == nil {
			return nil
		}
		var plain any
		if err := json.Unmarshal(EncodeJSON(v), &plain); err != nil {
			return v
		}
		return plain
	}
	return reflect.DeepEqual(get(a), get(b))
}
