package lru

import (
	"fmt"
	"testing"
)

// TestCache: the least recently used entry goes first, a Get counts as a
// use, a Put of a present key replaces its value, and the size never
// passes the capacity.
func TestCache(t *testing.T) {
	c := New[string, int](3)
	for i, k := range []string{"a", "b", "c"} {
		c.Put(k, i)
	}
	if v, ok := c.Get("a"); !ok || v != 0 { // a is now the most recent
		t.Fatalf("Get(a) = %v, %v", v, ok)
	}
	c.Put("d", 3) // evicts b
	c.Put("c", 20)
	tests := []struct {
		key  string
		want int
		ok   bool
	}{{"a", 0, true}, {"b", 0, false}, {"c", 20, true}, {"d", 3, true}}
	for _, tt := range tests {
		if v, ok := c.Get(tt.key); ok != tt.ok || v != tt.want {
			t.Errorf("Get(%s) = %v, %v; want %v, %v", tt.key, v, ok, tt.want, tt.ok)
		}
	}
	if hits, misses := c.Stats(); hits != 4 || misses != 1 {
		t.Errorf("stats: %d hits, %d misses; want 4, 1", hits, misses)
	}
	for i := range 100 {
		c.Put(fmt.Sprint(i), i)
		if c.Len() > 3 {
			t.Fatalf("%d entries, capacity 3", c.Len())
		}
	}
	if _, ok := c.Get("99"); !ok {
		t.Error("the last entry put is gone")
	}
}
