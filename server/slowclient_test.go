package server_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
	"github.com/cosmos-emulator/cosmos-emulator/server"
)

// startPlain starts a plain-HTTP emulator with the HTTP limits set by with
// and returns its host:port.
func startPlain(t *testing.T, with func(*server.Config)) string {
	t.Helper()
	e := emulatortest.Start(t, emulatortest.WithProtocol("http"), with)
	return strings.TrimSuffix(strings.TrimPrefix(e.Endpoint, "http://"), "/")
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// closedByServer reports whether the server closes c within a generous
// bound, reading (and dropping) whatever it sends first.
func closedByServer(c net.Conn) bool {
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

const healthRequest = "GET /_emulator/health HTTP/1.1\r\nHost: x\r\n\r\n"

// TestSlowClients: a body trickled slower than the read timeout is cut off,
// an idle keep-alive connection is closed after the idle timeout, and
// connections beyond the limit wait until one closes.
func TestSlowClients(t *testing.T) {
	t.Run("trickled body", func(t *testing.T) {
		addr := startPlain(t, func(c *server.Config) { c.ReadTimeout = time.Second })
		conn := dial(t, addr)
		if _, err := io.WriteString(conn, "POST /dbs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"); err != nil {
			t.Fatal(err)
		}
		stop := make(chan struct{})
		defer close(stop)
		go func() { // one byte every 100 ms: 100000 bytes would take hours
			for {
				select {
				case <-stop:
					return
				case <-time.After(100 * time.Millisecond):
				}
				if _, err := io.WriteString(conn, " "); err != nil {
					return
				}
			}
		}()
		if !closedByServer(conn) {
			t.Fatal("the server kept reading a trickled body")
		}
	})

	t.Run("idle keep-alive connection", func(t *testing.T) {
		addr := startPlain(t, func(c *server.Config) { c.IdleTimeout = 500 * time.Millisecond })
		conn := dial(t, addr)
		br := bufio.NewReader(conn)
		if _, err := io.WriteString(conn, healthRequest); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Close {
			t.Fatalf("health: %d, close %v; want 200 on a kept-alive connection", resp.StatusCode, resp.Close)
		}
		if !closedByServer(conn) {
			t.Fatal("the server kept an idle connection open")
		}
	})

	t.Run("connection limit: the longest idle connection makes room", func(t *testing.T) {
		addr := startPlain(t, func(c *server.Config) { c.MaxConns = 2 })
		// two leaked connections: one open and silent, one idle after a
		// request on keep-alive
		silent := dial(t, addr)
		time.Sleep(50 * time.Millisecond) // silent is the older
		idle := dial(t, addr)
		if _, err := io.WriteString(idle, healthRequest); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(idle), nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		third := dial(t, addr)
		if _, err := io.WriteString(third, healthRequest); err != nil {
			t.Fatal(err)
		}
		third.SetReadDeadline(time.Now().Add(30 * time.Second))
		resp, err = http.ReadResponse(bufio.NewReader(third), nil)
		if err != nil {
			t.Fatalf("a new client was locked out by two unused connections: %v", err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("health: %d", resp.StatusCode)
		}
		if !closedByServer(silent) {
			t.Fatal("the longest-waiting connection was kept open")
		}
	})

}
