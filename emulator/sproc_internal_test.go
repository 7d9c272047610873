package emulator

import (
	"fmt"
	"testing"
)

// TestOpFailureMessages: the err a script's callback receives carries the
// service's {"Errors":[...]} text once, also for a 413 whose client-facing
// message is itself that envelope (MsgTooLarge).
func TestOpFailureMessages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err    error
		number int
		msg    string
	}{
		{ErrTooLarge, 413, `{"Errors":["Request size is too large"]}`},
		{fmt.Errorf("create: %w", ErrTooLarge), 413, `{"Errors":["Request size is too large"]}`},
		{ErrItemNotFound, 404, `{"Errors":["Resource Not Found"]}`},
	}
	for _, tt := range tests {
		out, err := opFailure(tt.err)
		if err != nil || out.Err == nil {
			t.Fatalf("%v: outcome %+v, error %v", tt.err, out, err)
		}
		if out.Err.Number != tt.number || out.Err.Message != tt.msg {
			t.Errorf("%v: callback error %d %s, want %d %s", tt.err, out.Err.Number, out.Err.Message, tt.number, tt.msg)
		}
	}
}
