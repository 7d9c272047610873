package sqlgen

import (
	"encoding/json"
	"strings"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/cosmosql"
)

// The id column. Every items row stores its document's id, a string, in
// the column id as well (the store keeps them equal: a replace or patch
// cannot change it), and the table's primary key is (pk, id). A top-level
// WHERE term `c.id = <string constant>` therefore implies `r.id = <that
// string>`, and with the partition key known (r.pk = $n) the two make one
// primary-key lookup instead of a scan of the whole partition filtered on
// the jsonb document. Like the sargable conjuncts (index.go) the extra term
// is implied by the Cosmos predicate, so it never changes a result; where
// it decides the WHERE on its own (the whole WHERE is that term, or, in one
// partition, impliedByColumn in index.go) the predicate is left out.

// idEquality returns the string that a top-level AND term `root.id =
// constant` (either side, a literal or a parameter) of where fixes the id
// to; ok is false when there is none or the constant is not a string (a
// non-string id matches no document, and the exact predicate says so).
func (t *translator) idEquality(where cosmosql.Expr) (id string, ok bool) {
	b, isBin := where.(*cosmosql.Binary)
	if !isBin {
		return "", false
	}
	if strings.EqualFold(b.Op, "AND") {
		if id, ok := t.idEquality(b.L); ok {
			return id, true
		}
		return t.idEquality(b.R)
	}
	if b.Op != "=" {
		return "", false
	}
	for _, side := range [2][2]cosmosql.Expr{{b.L, b.R}, {b.R, b.L}} {
		path, isPath := t.rootPath(side[0])
		if !isPath || len(path) != 1 || path[0] != "id" {
			continue
		}
		raw, rank, isConst := t.constJSON(side[1])
		if !isConst || rank != 4 {
			continue
		}
		if json.Unmarshal(raw, &id) == nil {
			return id, true
		}
	}
	return "", false
}
