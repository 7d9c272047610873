package emulator

import (
	"encoding/json"
	"testing"
)

func TestMetaQuery(t *testing.T) {
	resources := [][]byte{
		[]byte(`{"id":"db1","_rid":"AAAAAQ=="}`),
		[]byte(`{"id":"db2","_rid":"AAAAAg==","offerResourceId":"QH8O+x=="}`),
	}
	tests := []struct {
		name  string
		q     Query
		want  []string
		unsup bool
	}{
		{"all", Query{Text: "SELECT * FROM root r"}, []string{"db1", "db2"}, false},
		{"by id param", Query{Text: "SELECT * FROM root r WHERE r.id = @id", Parameters: []QueryParameter{{Name: "@id", Value: json.RawMessage(`"db2"`)}}}, []string{"db2"}, false},
		{"by literal (the SDK's offer query)", Query{Text: "SELECT * FROM c WHERE c.offerResourceId = 'QH8O+x=='"}, []string{"db2"}, false},
		{"bracket and double quotes", Query{Text: `select * from c where c["id"] = "db1"`}, []string{"db1"}, false},
		{"two filters", Query{Text: `SELECT * FROM c WHERE c.id = 'db1' AND c._rid = 'AAAAAQ=='`}, []string{"db1"}, false},
		{"no match", Query{Text: `SELECT * FROM c WHERE c.id = 'nope'`}, nil, false},
		{"missing parameter is undefined: refused", Query{Text: "SELECT * FROM r WHERE r.id = @id"}, nil, true},
		{"projection unsupported", Query{Text: "SELECT r.id FROM r"}, nil, true},
		{"OR unsupported", Query{Text: "SELECT * FROM r WHERE r.id = 'a' OR r.id = 'b'"}, nil, true},
		{"comparison unsupported", Query{Text: "SELECT * FROM r WHERE r.id > 'a'"}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := filterRendered(tt.q, resources)
			if tt.unsup {
				if err == nil || KindOf(err) != KindBadRequest {
					t.Fatalf("want a 400, got %v (%d results)", err, len(got))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d results, want %v", len(got), tt.want)
			}
			for i, r := range got {
				var v struct{ ID string }
				_ = json.Unmarshal(r, &v)
				if v.ID != tt.want[i] {
					t.Fatalf("result %d is %s, want %s", i, v.ID, tt.want[i])
				}
			}
		})
	}
}
