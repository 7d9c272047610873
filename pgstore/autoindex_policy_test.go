package pgstore

import (
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// TestPolicyIndexed: the path rules of an indexing policy decide which
// query-made indexes exist; the most specific matching rule wins, and the
// legacy root "/" (emulator.LegacyRootPath) counts as /*.
func TestPolicyIndexed(t *testing.T) {
	tests := []struct {
		policy string
		path   []string
		want   bool
	}{
		{`{"includedPaths":[{"path":"/*"}]}`, []string{"a"}, true},
		{`{"includedPaths":[{"path":"/"}]}`, []string{"a"}, true},
		{`{"includedPaths":[{"path":"/","indexes":[{"kind":"Range","dataType":"Number","precision":-1}]}]}`, []string{"a", "b"}, true},
		{`{"includedPaths":[{"path":"/"}],"excludedPaths":[{"path":"/a/*"}]}`, []string{"a"}, false},
		{`{"includedPaths":[{"path":"/"}],"excludedPaths":[{"path":"/a/*"}]}`, []string{"b"}, true},
		{`{"includedPaths":[{"path":"/a/?"}],"excludedPaths":[{"path":"/"}]}`, []string{"a"}, true},
		{`{"includedPaths":[{"path":"/a/?"}],"excludedPaths":[{"path":"/"}]}`, []string{"b"}, false},
		{`{"includedPaths":[],"excludedPaths":[{"path":"/*"}]}`, []string{"a"}, false},
		{`{"indexingMode":"none"}`, []string{"a"}, false},
	}
	for _, tt := range tests {
		d, err := emulator.ParseContainerDefinition([]byte(`{"indexingPolicy":` + tt.policy + `}`))
		if err != nil {
			t.Fatal(err)
		}
		if got := pathIndexed(d.Indexing, tt.path); got != tt.want {
			t.Errorf("%s: indexed(%v) = %v, want %v", tt.policy, tt.path, got, tt.want)
		}
	}
}
