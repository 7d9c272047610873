package emulator

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
)

// ContainerDefinition is a container's body parsed once: the policies
// every request of the container consults (indexing, computed properties,
// full text, vector embeddings, unique keys, change feed retention,
// conflict resolution). The store parses it (ParseContainerDefinition)
// when it loads, creates or replaces a container and hands it out with
// the container (Container.Def), so that no request parses JSON to learn
// a policy. It is immutable once made and shared by every request of the
// container: nothing may modify it or its maps and slices.
type ContainerDefinition struct {
	Indexing IndexingPolicy
	// ComputedProperties are the container's computed properties by name
	// (nil when it has none).
	ComputedProperties map[string]ComputedProperty
	// FullText is the fullTextPolicy.
	FullText FullTextPolicy
	// VectorDistanceFunctions maps each path ("/a/b", as written) of the
	// vectorEmbeddingPolicy to its distance function (nil without one).
	VectorDistanceFunctions map[string]string
	// UniqueKeys are the unique keys of the uniqueKeyPolicy, each as its
	// split paths; keys without paths (which constrain nothing) are left
	// out.
	UniqueKeys [][][]string
	// ChangeFeedRetentionMinutes is changeFeedPolicy.retentionDuration
	// when it is a positive integer, else 0 (the default retention).
	ChangeFeedRetentionMinutes int64
	// ConflictResolution is the conflictResolutionPolicy.
	ConflictResolution ConflictResolutionPolicy
	// computedErr is the error of a computedProperties member that does
	// not parse (a stored body never has one: it was validated).
	computedErr error
}

// IndexingPolicy is the part of a container's indexingPolicy that decides
// which indexes exist.
type IndexingPolicy struct {
	// Mode is indexingMode as written ("consistent", "none", ...).
	Mode string
	// IncludedPaths and ExcludedPaths are the paths as written ("/a/?",
	// "/*").
	IncludedPaths, ExcludedPaths []string
	// CompositeIndexes are the composite indexes, each its paths in order.
	CompositeIndexes [][]CompositeIndexPath
	// FullTextIndexes are the paths of the full-text indexes, as written.
	FullTextIndexes []string
}

// CompositeIndexPath is one path of a composite index.
type CompositeIndexPath struct {
	Path       string // as written, "/a/b"
	Descending bool   // order "descending" (any case)
}

// FullTextPolicy is a container's fullTextPolicy.
type FullTextPolicy struct {
	DefaultLanguage string
	// Paths are the declared paths, each with its language ("" for the
	// default one).
	Paths []FullTextPath
}

// FullTextPath is one path of a fullTextPolicy.
type FullTextPath struct {
	Path, Language string
}

// ConflictResolutionPolicy is a container's conflictResolutionPolicy.
type ConflictResolutionPolicy struct {
	Mode, Path, Procedure string
}

// definitionParses counts ParseContainerDefinition calls.
var definitionParses atomic.Int64

// ContainerDefinitionParses returns how many container definitions this
// process has parsed so far. It is there for tests, which check that a
// request path parses none.
func ContainerDefinitionParses() int64 { return definitionParses.Load() }

// ParseContainerDefinition parses a container body (Container.Properties)
// into its definition. Each member is parsed on its own: one of a wrong
// shape leaves that policy empty, as if absent (bodies are validated
// before they are stored, so only an invalid body gets there); an invalid
// computedProperties member is remembered and reported by
// ComputedPropertiesErr. Its error is only for a body that is not a JSON
// object.
func ParseContainerDefinition(props []byte) (*ContainerDefinition, error) {
	definitionParses.Add(1)
	d := &ContainerDefinition{}
	var body struct {
		IndexingPolicy           json.RawMessage `json:"indexingPolicy"`
		ComputedProperties       json.RawMessage `json:"computedProperties"`
		FullTextPolicy           json.RawMessage `json:"fullTextPolicy"`
		VectorEmbeddingPolicy    json.RawMessage `json:"vectorEmbeddingPolicy"`
		UniqueKeyPolicy          json.RawMessage `json:"uniqueKeyPolicy"`
		ChangeFeedPolicy         json.RawMessage `json:"changeFeedPolicy"`
		ConflictResolutionPolicy json.RawMessage `json:"conflictResolutionPolicy"`
	}
	if len(props) == 0 {
		return d, nil
	}
	if err := json.Unmarshal(props, &body); err != nil {
		d.computedErr = fmt.Errorf("stored container properties: %w", err)
		return d, d.computedErr
	}
	d.parseIndexing(body.IndexingPolicy)
	d.parseComputed(body.ComputedProperties)
	d.parseFullText(body.FullTextPolicy)
	d.parseVectors(body.VectorEmbeddingPolicy)
	d.parseUniqueKeys(body.UniqueKeyPolicy)
	d.parseChangeFeed(body.ChangeFeedPolicy)
	d.parseConflictResolution(body.ConflictResolutionPolicy)
	return d, nil
}

// present reports whether a member is there and not null.
func present(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null"
}

func (d *ContainerDefinition) parseIndexing(raw json.RawMessage) {
	if !present(raw) {
		return
	}
	var ip struct {
		IndexingMode     string `json:"indexingMode"`
		CompositeIndexes [][]struct {
			Path  string `json:"path"`
			Order string `json:"order"`
		} `json:"compositeIndexes"`
		IncludedPaths []struct {
			Path string `json:"path"`
		} `json:"includedPaths"`
		ExcludedPaths []struct {
			Path string `json:"path"`
		} `json:"excludedPaths"`
		FullTextIndexes []struct {
			Path string `json:"path"`
		} `json:"fullTextIndexes"`
	}
	_ = json.Unmarshal(raw, &ip) // (a member of a wrong shape stays empty)
	d.Indexing.Mode = ip.IndexingMode
	for _, p := range ip.IncludedPaths {
		d.Indexing.IncludedPaths = append(d.Indexing.IncludedPaths, p.Path)
	}
	for _, p := range ip.ExcludedPaths {
		d.Indexing.ExcludedPaths = append(d.Indexing.ExcludedPaths, p.Path)
	}
	for _, ci := range ip.CompositeIndexes {
		paths := make([]CompositeIndexPath, 0, len(ci))
		for _, e := range ci {
			paths = append(paths, CompositeIndexPath{Path: e.Path, Descending: strings.EqualFold(e.Order, "descending")})
		}
		d.Indexing.CompositeIndexes = append(d.Indexing.CompositeIndexes, paths)
	}
	for _, p := range ip.FullTextIndexes {
		d.Indexing.FullTextIndexes = append(d.Indexing.FullTextIndexes, p.Path)
	}
}

func (d *ContainerDefinition) parseComputed(raw json.RawMessage) {
	if !present(raw) {
		return
	}
	var cps []ComputedProperty
	if err := json.Unmarshal(raw, &cps); err != nil {
		d.computedErr = fmt.Errorf("stored container properties: %w", err)
		return
	}
	if len(cps) == 0 {
		return
	}
	d.ComputedProperties = make(map[string]ComputedProperty, len(cps))
	for _, cp := range cps {
		d.ComputedProperties[cp.Name] = cp
	}
}

func (d *ContainerDefinition) parseFullText(raw json.RawMessage) {
	if !present(raw) {
		return
	}
	var p struct {
		DefaultLanguage string `json:"defaultLanguage"`
		Paths           []struct {
			Path     string `json:"path"`
			Language string `json:"language"`
		} `json:"fullTextPaths"`
	}
	_ = json.Unmarshal(raw, &p)
	d.FullText.DefaultLanguage = p.DefaultLanguage
	for _, fp := range p.Paths {
		d.FullText.Paths = append(d.FullText.Paths, FullTextPath{Path: fp.Path, Language: fp.Language})
	}
}

func (d *ContainerDefinition) parseVectors(raw json.RawMessage) {
	if !present(raw) {
		return
	}
	var p struct {
		Embeddings []struct {
			Path             string `json:"path"`
			DistanceFunction string `json:"distanceFunction"`
		} `json:"vectorEmbeddings"`
	}
	if json.Unmarshal(raw, &p) != nil {
		return
	}
	for _, e := range p.Embeddings {
		if e.Path != "" && e.DistanceFunction != "" {
			if d.VectorDistanceFunctions == nil {
				d.VectorDistanceFunctions = map[string]string{}
			}
			d.VectorDistanceFunctions[e.Path] = e.DistanceFunction
		}
	}
}

func (d *ContainerDefinition) parseUniqueKeys(raw json.RawMessage) {
	if !present(raw) {
		return
	}
	var p struct {
		UniqueKeys []struct {
			Paths []string `json:"paths"`
		} `json:"uniqueKeys"`
	}
	if json.Unmarshal(raw, &p) != nil {
		return
	}
	for _, k := range p.UniqueKeys {
		if len(k.Paths) == 0 {
			continue
		}
		key := make([][]string, len(k.Paths))
		for i, path := range k.Paths {
			key[i] = SplitPath(path)
		}
		d.UniqueKeys = append(d.UniqueKeys, key)
	}
}

func (d *ContainerDefinition) parseChangeFeed(raw json.RawMessage) {
	if !present(raw) {
		return
	}
	var p struct {
		Retention json.Number `json:"retentionDuration"`
	}
	if json.Unmarshal(raw, &p) != nil {
		return
	}
	if m, err := p.Retention.Int64(); err == nil && m > 0 {
		d.ChangeFeedRetentionMinutes = m
	}
}

func (d *ContainerDefinition) parseConflictResolution(raw json.RawMessage) {
	if !present(raw) {
		return
	}
	var p struct {
		Mode      string `json:"mode"`
		Path      string `json:"conflictResolutionPath"`
		Procedure string `json:"conflictResolutionProcedure"`
	}
	_ = json.Unmarshal(raw, &p)
	d.ConflictResolution = ConflictResolutionPolicy(p)
}

// ComputedPropertiesErr returns the error of a computedProperties member
// that did not parse (nil for every stored container).
func (d *ContainerDefinition) ComputedPropertiesErr() error { return d.computedErr }

// Definition returns c's parsed definition: c.Def, which the store sets on
// every container it returns, or else (a Container made by hand) a
// definition parsed from c.Properties now.
func (c Container) Definition() *ContainerDefinition {
	if c.Def != nil {
		return c.Def
	}
	d, _ := ParseContainerDefinition(c.Properties)
	return d
}
