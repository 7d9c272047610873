package sqlgen_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/cosmosql"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/sqlgen"
)

// TestNotYetSupportedShapes pins the list of docs/compatibility.md's "Not
// yet": each of these queries is refused with an UnsupportedError (400
// "... is not supported by this emulator yet."), never translated into a
// statement that could give a wrong result. A shape that starts to work
// leaves this table and that list together.
func TestNotYetSupportedShapes(t *testing.T) {
	t.Parallel()
	params := map[string]json.RawMessage{"@u": nil, "@s": json.RawMessage(`"x"`), "@f": json.RawMessage(`1.5`)}
	for _, q := range []string{
		`SELECT VALUE (SELECT c2.g, COUNT(1) AS n FROM c2 IN c.items GROUP BY c2.g) FROM c`,
		`SELECT DISTINCT VALUE COUNT(1) FROM c`,
		`SELECT DISTINCT * FROM c`,
		`SELECT VALUE DOCUMENTID(t) FROM c JOIN t IN c.tags`,
		`SELECT * FROM c WHERE c.a LIKE 'x' ESCAPE 'ab'`,
		`SELECT TOP @u * FROM c`,
		`SELECT TOP @s * FROM c`,
		`SELECT * FROM c OFFSET 0 LIMIT @f`,
		`SELECT c.id FROM c JOIN t IN c.tags ORDER BY RANK FullTextScore(c.text, 'a')`,
		`SELECT c.id FROM c GROUP BY c.id ORDER BY RANK FullTextScore(c.text, 'a')`,
		`SELECT DISTINCT c.id FROM c ORDER BY RANK FullTextScore(c.text, 'a')`,
		`SELECT c.id FROM c ORDER BY RANK FullTextScore(LOWER(c.text), 'a')`,
		`SELECT c.id FROM c ORDER BY RANK FullTextScore(c.text, c.word)`,
	} {
		parsed, err := cosmosql.Parse(q)
		if err != nil {
			t.Errorf("%s: parse: %v", q, err)
			continue
		}
		_, err = sqlgen.Translate(parsed, sqlgen.Input{Table: "t", CollRID: []byte{1, 2, 3, 4, 5, 6, 7, 8},
			SelfPrefix: "dbs/x/colls/y/docs/", Live: "TRUE", PageSize: 10, Params: params})
		var ue *sqlgen.UnsupportedError
		if !errors.As(err, &ue) {
			t.Errorf("%s: %v, want an UnsupportedError", q, err)
		}
	}
}
