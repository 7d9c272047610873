// Package lru is a bounded, least-recently-used cache safe for concurrent
// use.
package lru

import (
	"container/list"
	"sync"
)

// Cache maps keys to values, holding at most its capacity of them: adding
// one more evicts the entry used least recently. Its zero value is not
// usable; make one with New.
type Cache[K comparable, V any] struct {
	mu    sync.Mutex
	max   int
	order *list.List // front: most recently used; elements hold *entry
	m     map[K]*list.Element
	// hits and misses count Get calls.
	hits, misses uint64
}

type entry[K comparable, V any] struct {
	key K
	val V
}

// New returns an empty cache of capacity size (at least 1).
func New[K comparable, V any](size int) *Cache[K, V] {
	return &Cache[K, V]{max: max(size, 1), order: list.New(), m: map[K]*list.Element{}}
}

// Get returns the value of key and whether it is there, making it the most
// recently used.
func (c *Cache[K, V]) Get(key K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.m[key]
	if !ok {
		c.misses++
		var zero V
		return zero, false
	}
	c.hits++
	c.order.MoveToFront(el)
	return el.Value.(*entry[K, V]).val, true
}

// Put sets the value of key, the most recently used, evicting the least
// recently used entry when the cache is full.
func (c *Cache[K, V]) Put(key K, val V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.m[key]; ok {
		el.Value.(*entry[K, V]).val = val
		c.order.MoveToFront(el)
		return
	}
	if c.order.Len() >= c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.m, last.Value.(*entry[K, V]).key)
	}
	c.m[key] = c.order.PushFront(&entry[K, V]{key: key, val: val})
}

// Len returns the number of entries.
func (c *Cache[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

// Stats returns how many Get calls found their key and how many did not.
func (c *Cache[K, V]) Stats() (hits, misses uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits, c.misses
}
