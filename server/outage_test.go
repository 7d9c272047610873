package server_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgtest"
	"github.com/cosmos-emulator/cosmos-emulator/server"
)

func TestMain(m *testing.M) { os.Exit(emulatortest.Main(m)) }

var bg = context.Background()

// pgProxy forwards TCP connections to a PostgreSQL server and can cut them
// all (an outage: the network or the server is gone) and let them through
// again.
type pgProxy struct {
	ln       net.Listener
	upstream func() (net.Conn, error)
	mu       sync.Mutex
	down     bool
	conns    map[net.Conn]bool
}

// newPGProxy starts a proxy to the database connString and returns it with
// the connection string that goes through it.
func newPGProxy(t *testing.T, connString string) (*pgProxy, string) {
	t.Helper()
	c, err := pgconn.ParseConfig(connString)
	if err != nil {
		t.Fatal(err)
	}
	network, addr := "tcp", net.JoinHostPort(c.Host, fmt.Sprint(c.Port))
	if strings.HasPrefix(c.Host, "/") {
		network, addr = "unix", filepath.Join(c.Host, fmt.Sprintf(".s.PGSQL.%d", c.Port))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &pgProxy{ln: ln, conns: map[net.Conn]bool{}, upstream: func() (net.Conn, error) { return net.Dial(network, addr) }}
	t.Cleanup(func() { ln.Close(); p.cut() })
	go p.serve()
	via := fmt.Sprintf("host=127.0.0.1 port=%d user=%s dbname=%s sslmode=disable connect_timeout=5", ln.Addr().(*net.TCPAddr).Port, c.User, c.Database)
	if c.Password != "" {
		via += " password=" + c.Password
	}
	return p, via
}

func (p *pgProxy) serve() {
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		down := p.down
		p.mu.Unlock()
		if down {
			client.Close()
			continue
		}
		server, err := p.upstream()
		if err != nil {
			client.Close()
			continue
		}
		p.mu.Lock()
		p.conns[client], p.conns[server] = true, true
		p.mu.Unlock()
		go func() { io.Copy(server, client); server.Close() }() //nolint:errcheck
		go func() { io.Copy(client, server); client.Close() }() //nolint:errcheck
	}
}

// cut closes every connection and refuses new ones until restore.
func (p *pgProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for c := range p.conns {
		c.Close()
	}
	p.conns = map[net.Conn]bool{}
}

func (p *pgProxy) restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = false
}

// health returns the status of GET /_emulator/health.
func health(t *testing.T, e *emulatortest.Emulator) int {
	t.Helper()
	resp, err := emulatortest.HTTPClient().Get(e.Endpoint + "_emulator/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// ready returns the status of GET /ready on the health server.
func ready(t *testing.T, e *emulatortest.Emulator) int {
	t.Helper()
	resp, err := http.Get(e.HealthURL() + "/ready") //nolint:noctx
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// statusOf returns the HTTP status of an SDK call's error (200 for none)
// and its x-ms-retry-after-ms header.
func statusOf(t *testing.T, err error) (int, string) {
	t.Helper()
	if err == nil {
		return http.StatusOK, ""
	}
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		t.Fatalf("not a response error: %v", err)
	}
	return re.StatusCode, re.RawResponse.Header.Get("x-ms-retry-after-ms")
}

// newContainer creates database "db" with container "c" partitioned on
// /pk.
func newContainer(t *testing.T, c *azcosmos.Client) *azcosmos.ContainerClient {
	t.Helper()
	if _, err := c.CreateDatabase(bg, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := c.NewDatabase("db")
	if _, err := db.CreateContainer(bg, azcosmos.ContainerProperties{ID: "c", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil); err != nil {
		t.Fatal(err)
	}
	cc, _ := db.NewContainer("c")
	return cc
}

// eventually polls f every 100 ms for up to a minute (a generous bound).
func eventually(t *testing.T, what string, f func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !f() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestPostgresOutage cuts the emulator off its PostgreSQL: every request is
// a 503 with x-ms-retry-after-ms (never a 500), the health endpoint and the
// health server's /ready say not ready, and when PostgreSQL is back all
// recover by themselves.
func TestPostgresOutage(t *testing.T) {
	proxy, via := newPGProxy(t, pgtest.NewDatabase(t))
	e := emulatortest.StartOn(t, via, func(c *server.Config) { c.HealthAddr = "127.0.0.1:0" })
	c := e.Client(t)
	cc := newContainer(t, c)
	pk := azcosmos.NewPartitionKeyString("p")
	if _, err := cc.CreateItem(bg, pk, []byte(`{"id":"a","pk":"p"}`), nil); err != nil {
		t.Fatal(err)
	}
	ops := []struct {
		name string
		do   func() error
	}{
		{"read item", func() error { _, err := cc.ReadItem(bg, pk, "a", nil); return err }},
		{"create item", func() error { _, err := cc.CreateItem(bg, pk, []byte(`{"id":"b","pk":"p"}`), nil); return err }},
		{"upsert item", func() error { _, err := cc.UpsertItem(bg, pk, []byte(`{"id":"a","pk":"p","v":1}`), nil); return err }},
		{"delete item", func() error { _, err := cc.DeleteItem(bg, pk, "zz", nil); return err }},
		{"query", func() error {
			_, err := cc.NewQueryItemsPager("SELECT * FROM c", pk, nil).NextPage(bg)
			return err
		}},
		{"read container", func() error { _, err := cc.Read(bg, nil); return err }},
		{"create database", func() error { _, err := c.CreateDatabase(bg, azcosmos.DatabaseProperties{ID: "db2"}, nil); return err }},
		{"list databases", func() error { _, err := c.NewQueryDatabasesPager("SELECT * FROM r", nil).NextPage(bg); return err }},
	}

	proxy.cut()
	if got := health(t, e); got != http.StatusServiceUnavailable {
		t.Errorf("health during the outage: %d, want 503", got)
	}
	if got := ready(t, e); got != http.StatusServiceUnavailable {
		t.Errorf("/ready during the outage: %d, want 503", got)
	}
	for _, op := range ops {
		status, retry := statusOf(t, op.do())
		if status != http.StatusServiceUnavailable || retry == "" {
			t.Errorf("%s during the outage: status %d, x-ms-retry-after-ms %q; want 503 with a retry delay", op.name, status, retry)
		}
	}

	proxy.restore()
	eventually(t, "health after the outage", func() bool { return health(t, e) == http.StatusOK })
	eventually(t, "/ready after the outage", func() bool { return ready(t, e) == http.StatusOK })
	for _, op := range ops {
		eventually(t, op.name+" after the outage", func() bool {
			status, _ := statusOf(t, op.do())
			return status < 500
		})
	}
	if st := e.SweeperStats(); st.LastError != "" {
		// The sweeper may have failed during the outage; it must not
		// report that failure once a sweep has succeeded again.
		if _, err := e.Sweep(bg); err != nil {
			t.Fatal(err)
		}
		if st := e.SweeperStats(); st.LastError != "" {
			t.Errorf("sweeper lastError after recovery: %q", st.LastError)
		}
	}
}

// TestManagedPostmasterKilled kills the managed postmaster under write load:
// writes fail with 503 (never 500) while it is down, the emulator's
// supervisor restarts it and writes succeed again by themselves, and every
// acknowledged write is still there.
func TestManagedPostmasterKilled(t *testing.T) {
	e := emulatortest.StartManaged(t)
	c := e.Client(t)
	cc := newContainer(t, c)
	pk := azcosmos.NewPartitionKeyString("p")

	var acked []string
	statuses := map[int]int{}
	killed := false
	restarted := false
	for i := 0; i < 5000 && !restarted; i++ {
		id := fmt.Sprint(i)
		status, _ := statusOf(t, func() error { _, err := cc.CreateItem(bg, pk, []byte(`{"id":"`+id+`","pk":"p"}`), nil); return err }())
		statuses[status]++
		switch {
		case status == http.StatusCreated || status == http.StatusOK:
			acked = append(acked, id)
			restarted = killed && e.ManagedPostgres().Restarts() > 0
		case status != http.StatusServiceUnavailable:
			t.Fatalf("write %s: status %d, want 201 or 503", id, status)
		default:
			time.Sleep(20 * time.Millisecond)
		}
		if i == 50 {
			e.KillPostgres(t)
			killed = true
		}
	}
	if !restarted {
		t.Fatalf("writes did not resume after the kill (statuses %v)", statuses)
	}
	t.Logf("statuses: %v", statuses)
	eventually(t, "health after the restart", func() bool { return health(t, e) == http.StatusOK })
	for _, id := range acked {
		if _, err := cc.ReadItem(bg, pk, id, nil); err != nil {
			t.Fatalf("acknowledged write %s lost: %v", id, err)
		}
	}
}
