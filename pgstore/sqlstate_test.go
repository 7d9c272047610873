package pgstore

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestQueryErrorsNeverCarryPostgresWording: a query's runtime error is a
// 400 whose message is chosen by SQLSTATE; PostgreSQL's message (which
// names its types, functions and syntax) stays out of it. Other errors are
// the server's (500), with no PostgreSQL text either.
func TestQueryErrorsNeverCarryPostgresWording(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		code, pgMsg string
		kind        emulator.Kind
		msg         string
	}{
		{"22003", "value out of range: overflow", emulator.KindBadRequest, MsgQueryNumberRange},
		{"22003", "input is out of range", emulator.KindBadRequest, MsgQueryNumberRange},
		{"2201B", "invalid regular expression: parentheses () not balanced", emulator.KindBadRequest, MsgQueryInvalidRegex},
		{"22P05", "unsupported Unicode escape sequence", emulator.KindBadRequest, MsgQueryText},
		{"22021", `invalid byte sequence for encoding "UTF8": 0x00`, emulator.KindBadRequest, MsgQueryText},
		{"2201F", "zero raised to a negative power is undefined", emulator.KindBadRequest, MsgQueryMathDomain},
		{"22008", "timestamp out of range", emulator.KindBadRequest, MsgQueryEvaluation},
		{"54001", "stack depth limit exceeded", emulator.KindBadRequest, MsgQueryTooComplex},
		{"42P18", "could not determine data type of parameter $1", emulator.KindInternal, "The emulator's database failed: query items"},
	} {
		err := classifyQuery(fmt.Errorf("query: %w", &pgconn.PgError{Code: c.code, Message: c.pgMsg}))
		var ee *emulator.Error
		if !errors.As(err, &ee) || ee.Kind != c.kind || ee.Message != c.msg {
			t.Errorf("%s %q: %#v, want kind %v message %q", c.code, c.pgMsg, err, c.kind, c.msg)
			continue
		}
		if strings.Contains(ee.Message, c.pgMsg) {
			t.Errorf("%s: message %q holds PostgreSQL's %q", c.code, ee.Message, c.pgMsg)
		}
	}
}
