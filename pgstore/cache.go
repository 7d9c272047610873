package pgstore

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// metadataChannel is the LISTEN/NOTIFY channel on which every change of
// database or container metadata is announced, so that every emulator
// process sharing the database drops its cached containers.
const metadataChannel = "cosmos_metadata"

// containerCache caches container lookups (every item operation needs one)
// to save a round trip per request. It is only used while its listener is
// connected to PostgreSQL: any metadata change, by this process or another
// one, is NOTIFYed in the changing transaction and clears the cache when it
// commits. A generation counter keeps a lookup that raced with a clear from
// re-inserting a stale entry.
type containerCache struct {
	mu      sync.Mutex
	enabled bool
	gen     uint64
	m       map[[2]string]cachedContainer
	// lastPayload is the payload of the last notification the listener
	// handled: notifications arrive in commit order, so a test that
	// sends one of its own knows, once it is here, that every change
	// committed before it has cleared the cache.
	lastPayload string
}

type cachedContainer struct {
	c   emulator.Container
	gen uint64
}

func newContainerCache() *containerCache {
	return &containerCache{m: map[[2]string]cachedContainer{}}
}

// get returns a cached container, and the generation to pass to put on a
// miss.
func (cc *containerCache) get(dbRef, collRef string) (emulator.Container, bool, uint64) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if !cc.enabled {
		return emulator.Container{}, false, cc.gen
	}
	e, ok := cc.m[[2]string{dbRef, collRef}]
	return e.c, ok, cc.gen
}

// put caches c if nothing was cleared since generation gen.
func (cc *containerCache) put(dbRef, collRef string, c emulator.Container, gen uint64) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if !cc.enabled || gen != cc.gen {
		return
	}
	if len(cc.m) > 10000 {
		cc.m = map[[2]string]cachedContainer{}
	}
	cc.m[[2]string{dbRef, collRef}] = cachedContainer{c: c, gen: gen}
}

// clear drops every entry.
func (cc *containerCache) clear() {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	cc.gen++
	clear(cc.m)
}

func (cc *containerCache) setEnabled(on bool) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	cc.enabled = on
	cc.gen++
	clear(cc.m)
}

// listen keeps a connection LISTENing on metadataChannel until ctx ends,
// clearing the cache on every notification; while disconnected the cache
// is disabled (every lookup goes to PostgreSQL). Every failure is logged,
// and so is the reconnection that ends it; attempts repeat every second.
func (s *Store) listen(ctx context.Context, done chan<- struct{}) {
	defer close(done)
	failed := false
	for ctx.Err() == nil {
		err := s.listenOnce(ctx, &failed)
		if ctx.Err() != nil {
			return
		}
		failed = true
		s.log.Warn("pgstore: the metadata listener lost its connection; the container cache is off until it reconnects (retrying every second)", "err", err)
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// listenOnce connects, LISTENs and clears the cache on notifications
// until the connection fails (its error) or ctx ends.
func (s *Store) listenOnce(ctx context.Context, failed *bool) error {
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.Background(), time.Second)
		_ = conn.Close(closeCtx)
		cancel()
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+metadataChannel); err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	if *failed {
		s.log.Info("pgstore: the metadata listener reconnected; the container cache is on again")
		*failed = false
	}
	s.cache.setEnabled(true)
	defer s.cache.setEnabled(false)
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return fmt.Errorf("wait for notification: %w", err)
		}
		s.cache.clear()
		s.cache.mu.Lock()
		s.cache.lastPayload = n.Payload
		s.cache.mu.Unlock()
	}
}

// notifyMetadataChanged announces a metadata change; inside tx the
// notification is delivered when tx commits. The local cache is cleared at
// once as well.
func (s *Store) notifyMetadataChanged(ctx context.Context, tx pgx.Tx) error {
	s.cache.clear()
	_, err := tx.Exec(ctx, "SELECT pg_notify($1, '')", metadataChannel)
	return err
}
