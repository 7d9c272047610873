package server

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/server/tlscert"
)

// BenchmarkTLSConnection measures what sniffListener costs a TLS client: a
// new connection (handshake) and one request per iteration, through a TLS
// listener over the bare TCP listener and over sniffListener. Compare the
// two sub-benchmarks; nothing here asserts a time.
func BenchmarkTLSConnection(b *testing.B) {
	cert, certPEM, err := tlscert.LoadOrCreate(tlscert.Options{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(certPEM)
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"http/1.1"}, MinVersion: tls.VersionTLS12}
	for _, bc := range []struct {
		name string
		wrap func(net.Listener) net.Listener
	}{
		{"bare", func(ln net.Listener) net.Listener { return ln }},
		{"sniffing", func(ln net.Listener) net.Listener { return sniffListener{ln} }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "ok") })}
			go func() { _ = srv.Serve(tls.NewListener(bc.wrap(ln), cfg)) }()
			defer srv.Close()
			client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true, TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
			url := "https://" + ln.Addr().String() + "/"
			b.ResetTimer()
			for b.Loop() {
				resp, err := client.Get(url) //nolint:noctx
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
}
