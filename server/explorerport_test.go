package server_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
	"github.com/cosmos-emulator/cosmos-emulator/server"
)

// TestExplorerPort: with ExplorerAddr (Microsoft's EXPLORER_PORT) the data
// explorer has a listener of its own, in the scheme of ExplorerProtocol
// (default: http, also when the gateway serves https, so that a browser
// opens it without a certificate warning). GET / there redirects to the page, the page
// and its settings (the key, loopback listener) are served, and the
// signed API calls the page makes reach the gateway through the same
// origin: the Go SDK pointed at the explorer's origin creates and reads
// a database. Without ExplorerAddr, or with the explorer disabled, there
// is no such listener.
func TestExplorerPort(t *testing.T) {
	for _, tc := range []struct{ gateway, explorer, wantScheme string }{
		{"https", "", "http"},
		{"http", "", "http"},
		{"https", "http", "http"},
		{"http", "https", "https"},
	} {
		t.Run(tc.gateway+"/"+tc.explorer, func(t *testing.T) {
			e := emulatortest.Start(t, emulatortest.WithProtocol(tc.gateway), func(c *server.Config) {
				c.ExplorerAddr, c.ExplorerProtocol = "127.0.0.1:0", tc.explorer
			})
			page := e.ExplorerURL()
			if !strings.HasPrefix(page, tc.wantScheme+"://127.0.0.1:") || !strings.HasSuffix(page, "/_explorer/index.html") || strings.HasPrefix(page, e.Endpoint) {
				t.Fatalf("ExplorerURL = %q, want %s on its own port (gateway %s)", page, tc.wantScheme, e.Endpoint)
			}
			origin := strings.TrimSuffix(page, "_explorer/index.html")
			hc := emulatortest.HTTPClient()
			noRedirect := *hc
			noRedirect.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
			resp, err := noRedirect.Get(origin) //nolint:noctx
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/_explorer/index.html" {
				t.Fatalf("GET / on the explorer port: %d Location %q, want 302 to /_explorer/index.html", resp.StatusCode, resp.Header.Get("Location"))
			}
			for _, path := range []string{"_explorer/index.html", "_explorer/settings.json"} {
				resp, err := hc.Get(origin + path) //nolint:noctx
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
				}
				if strings.HasSuffix(path, ".json") {
					var st struct {
						Key string `json:"key"`
					}
					if err := json.Unmarshal(body, &st); err != nil || st.Key != emulatortest.Key {
						t.Fatalf("settings on a loopback explorer listener: %s (%v), want the key", body, err)
					}
				}
			}
			cred, _ := azcosmos.NewKeyCredential(emulatortest.Key)
			client, err := azcosmos.NewClientWithKey(origin, cred, &azcosmos.ClientOptions{ClientOptions: azcore.ClientOptions{
				Transport: hc, Retry: policy.RetryOptions{MaxRetries: -1}}})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "viaexplorer"}, nil); err != nil {
				t.Fatalf("create a database through the explorer's origin: %v", err)
			}
			db, _ := client.NewDatabase("viaexplorer")
			if _, err := db.Read(ctx, nil); err != nil {
				t.Fatalf("read it: %v", err)
			}
			if _, err := e.Client(t).NewDatabase("viaexplorer"); err != nil {
				t.Fatal(err)
			}
		})
	}
	t.Run("none", func(t *testing.T) {
		for _, opt := range []emulatortest.Option{
			func(c *server.Config) {},
			func(c *server.Config) { c.ExplorerAddr, c.DisableExplorer = "127.0.0.1:0", true },
		} {
			if u := emulatortest.Start(t, opt).ExplorerURL(); u != "" {
				t.Errorf("ExplorerURL = %q, want none", u)
			}
		}
	})
}

// TestExplorerPortInUse: an explicit explorer port that another program
// holds is a start error naming --explorer-port; the default one
// (ExplorerOptional) is skipped and the emulator serves.
func TestExplorerPortInUse(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	pg := emulatortest.Start(t).PG
	cfg := server.Config{Addr: "127.0.0.1:0", PG: pg, DataDir: t.TempDir(), ExplorerAddr: busy.Addr().String()}
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	if s, err := server.Start(context.Background(), cfg); err == nil {
		s.Close(context.Background()) //nolint:errcheck
		t.Fatal("an explicit explorer port in use: started, want an error")
	} else if !strings.Contains(err.Error(), "--explorer-port") || !strings.Contains(err.Error(), busy.Addr().String()) {
		t.Fatalf("error %q does not name the address and --explorer-port", err)
	}
	cfg.ExplorerOptional = true
	s, err := server.Start(context.Background(), cfg)
	if err != nil {
		t.Fatalf("the default explorer port in use: %v, want a warning only", err)
	}
	defer s.Close(context.Background()) //nolint:errcheck
	if s.ExplorerURL() != "" {
		t.Errorf("ExplorerURL = %q, want none", s.ExplorerURL())
	}
}
