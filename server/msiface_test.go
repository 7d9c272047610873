package server_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"software.sslmate.com/src/go-pkcs12"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgtest"
	"github.com/cosmos-emulator/cosmos-emulator/server"
)

// TestCertBundle: with a PKCS#12 certificate (CERT_PATH and CERT_SECRET,
// as Aspire mounts its developer certificate) the emulator serves TLS with
// that certificate and serves it at /_explorer/emulator.pem.
func TestCertBundle(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "aspire dev cert"}, DNSNames: []string{"localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pfx, err := pkcs12.Modern.Encode(key, cert, nil, "dev-secret")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "dev.pfx")
	if err := os.WriteFile(path, pfx, 0o600); err != nil {
		t.Fatal(err)
	}
	e := emulatortest.Start(t, func(c *server.Config) { c.CertBundle, c.CertBundlePassword = path, "dev-secret" })

	var served []byte
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true, //nolint:gosec // the test checks the certificate itself
		VerifyConnection: func(cs tls.ConnectionState) error { served = cs.PeerCertificates[0].Raw; return nil }}}}
	resp, err := hc.Get(e.Endpoint + "_explorer/emulator.pem") //nolint:noctx
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Equal(served, der) {
		t.Error("the TLS handshake did not present the PKCS#12 certificate")
	}
	if want := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}); resp.StatusCode != 200 || !bytes.Equal(body, want) {
		t.Errorf("emulator.pem: %d\n%s\nwant\n%s", resp.StatusCode, body, want)
	}
}

// TestCertBundleErrors: a wrong password, and a PKCS#12 file together with
// PEM files, are start errors naming the fix.
func TestCertBundleErrors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "junk.pfx")
	if err := os.WriteFile(path, []byte("junk"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		cfg  server.Config
		want string
	}{
		{"unreadable", server.Config{CertBundle: path, CertBundlePassword: "x"}, "CERT_SECRET"},
		{"two sources", server.Config{CertBundle: path, CertFile: "/a.pem", CertKeyFile: "/a.key"}, "give one of them"},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.cfg.Addr, c.cfg.PG, c.cfg.DataDir = "127.0.0.1:0", pgtest.NewDatabase(t), t.TempDir()
			_, err := server.Start(t.Context(), c.cfg)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want one containing %q", err, c.want)
			}
		})
	}
}

// TestHealthServer: the in-process server's health server answers the
// probes of Aspire (/ready 200 once ready) and reports its parts.
func TestHealthServer(t *testing.T) {
	e := emulatortest.Start(t, emulatortest.WithProtocol("http"), func(c *server.Config) { c.HealthAddr = "127.0.0.1:0" })
	h := e.HealthURL()
	if !strings.HasPrefix(h, "http://127.0.0.1:") {
		t.Fatalf("HealthURL %q", h)
	}
	for path, want := range map[string]string{"/alive": `"alive"`, "/ready": `"ready"`, "/health": `"ready"`} {
		resp, err := http.Get(h + path) //nolint:noctx
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(b), want) {
			t.Errorf("GET %s: %d %s", path, resp.StatusCode, b)
		}
	}
	resp, err := http.Get(h + "/status") //nolint:noctx
	if err != nil {
		t.Fatal(err)
	}
	var st server.HealthStatus
	err = json.NewDecoder(resp.Body).Decode(&st)
	resp.Body.Close()
	if err != nil || st != (server.HealthStatus{PostgreSQL: "OK", Gateway: "OK", Explorer: "OK", Ready: true, Endpoint: e.Endpoint, Version: st.Version, Durability: "external"}) {
		t.Errorf("status %+v %v", st, err)
	}
	// without HealthAddr there is none
	if u := emulatortest.Start(t, emulatortest.WithProtocol("http")).HealthURL(); u != "" {
		t.Errorf("HealthURL without HealthAddr: %q", u)
	}
}

// TestExplorerDisabled: with ENABLE_EXPLORER=false the data explorer's
// page, scripts and settings (which may hold the key) are 404.
func TestExplorerDisabled(t *testing.T) {
	e := emulatortest.Start(t, emulatortest.WithProtocol("http"), func(c *server.Config) { c.DisableExplorer = true })
	for _, p := range []string{"_explorer/index.html", "_explorer/", "_explorer/app.js", "_explorer/settings.json"} {
		resp, err := http.Get(e.Endpoint + p) //nolint:noctx
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 404 || !strings.Contains(string(b), `"code":"NotFound"`) || strings.Contains(string(b), emulatortest.Key) {
			t.Errorf("GET /%s: %d %s", p, resp.StatusCode, b)
		}
	}
}

// TestCertExport: with --cert-export the serving certificate (the bytes of
// /_explorer/emulator.pem) is written to that path at start, directories
// created, as the image does at the classic emulator's path, which
// testcontainers-python copies out of the container; a path that cannot
// be written is a start error naming the flag.
func TestCertExport(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tmp", "cosmos", "appdata", "CosmosDBEmulator", "emulator.pem")
	e := emulatortest.Start(t, func(c *server.Config) { c.CertExport = path })
	resp, err := emulatortest.HTTPClient().Get(e.Endpoint + "_explorer/emulator.pem") //nolint:noctx
	if err != nil {
		t.Fatal(err)
	}
	served, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	exported, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || len(served) == 0 || !bytes.Equal(exported, served) {
		t.Errorf("exported certificate differs from the served one: %d\n%s\nvs\n%s", resp.StatusCode, exported, served)
	}

	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := server.Config{Addr: "127.0.0.1:0", PG: pgtest.NewDatabase(t), DataDir: t.TempDir(), CertExport: filepath.Join(blocker, "emulator.pem")}
	if s, err := server.Start(t.Context(), cfg); err == nil || !strings.Contains(err.Error(), "--cert-export") {
		if s != nil {
			s.Close(t.Context())
		}
		t.Errorf("err = %v, want a start error naming --cert-export", err)
	}
}
