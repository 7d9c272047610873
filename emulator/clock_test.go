package emulator

import (
	"testing"
	"time"
)

func TestClockMovesForwardOnly(t *testing.T) {
	base := time.Unix(1000, 0)
	c := NewClock(func() time.Time { return base })
	if err := c.Advance(90 * time.Second); err != nil {
		t.Fatal(err)
	}
	if got := c.Now().Unix(); got != 1090 {
		t.Fatalf("Now = %d, want 1090", got)
	}
	if err := c.Advance(-time.Second); err == nil {
		t.Fatal("Advance(-1s) accepted")
	}
	if err := c.SetOffset(10*time.Second, false); err == nil {
		t.Fatal("SetOffset backwards accepted without reset")
	}
	if err := c.SetOffset(100*time.Second, false); err != nil {
		t.Fatal(err)
	}
	if err := c.SetOffset(0, true); err != nil {
		t.Fatal(err)
	}
	if c.Offset() != 0 || c.Now().Unix() != 1000 {
		t.Fatalf("after reset: offset %v now %d", c.Offset(), c.Now().Unix())
	}
}
