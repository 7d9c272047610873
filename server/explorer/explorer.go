// Package explorer serves the data explorer: a small web page at
// /_explorer/index.html (where Microsoft's emulators serve theirs) with its
// scripts and style under /_explorer/, embedded in the binary (plain HTML,
// CSS and ES modules written by hand: no CDN, no build step, works
// offline).
//
// The page is a client like any other: it signs its requests to the
// Cosmos REST API with the master key (HMAC-SHA256 over verb, resource
// type, resource link and date, with WebCrypto, or a small script
// implementation where the page is not a secure context). The key is
// typed in by the user, or handed to the page by GET
// /_explorer/settings.json under the rule of KeyForRequest: only when the
// emulator listens on a loopback address and the page was loaded through a
// loopback host name, or when the operator asked for it explicitly
// (Config.ExposeKey, the --explorer-expose-key flag).
//
// The package knows no Cosmos resources: the wire layer mounts its
// Handler under /_explorer/ (the certificate /_explorer/emulator.pem stays
// the wire layer's).
package explorer

import (
	"bytes"
	"embed"
	"encoding/json"
	"io/fs"
	"net"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"
)

//go:embed assets
var assets embed.FS

// Prefix is the URL path the explorer is served under.
const Prefix = "/_explorer/"

// SettingsPath is the JSON endpoint that tells the page whether the
// server hands it the key (and the key when it does).
const SettingsPath = Prefix + "settings.json"

// Config configures New.
type Config struct {
	// Key is the base64 master key the emulator accepts.
	Key string
	// ListenAddr is the address the emulator's listener is bound to
	// (host:port, as net.Listener.Addr reports it).
	ListenAddr string
	// ExposeKey hands the key to every page that asks, whatever the
	// listener and host name (--explorer-expose-key). Off by default.
	ExposeKey bool
}

// Settings is the body of GET /_explorer/settings.json.
type Settings struct {
	// Key is the master key, present only when the rule allows it.
	Key string `json:"key,omitempty"`
	// KeyProvided tells whether Key is set.
	KeyProvided bool `json:"keyProvided"`
	// Reason explains, when no key is provided, why, and how to get it
	// filled in.
	Reason string `json:"reason,omitempty"`
}

// IsLoopbackListener reports whether a listener bound to listenAddr
// (host:port) accepts connections from this machine only: its host is a
// loopback IP (127.0.0.0/8, ::1) or "localhost". The unspecified
// addresses (0.0.0.0, ::, an empty host) and every other address are not.
func IsLoopbackListener(listenAddr string) bool {
	host, _, err := net.SplitHostPort(listenAddr)
	if err != nil {
		host = listenAddr
	}
	return isLoopbackHost(host)
}

// isLoopbackHost reports whether host (no port; brackets allowed) is
// "localhost", a name under .localhost, or a loopback IP.
func isLoopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if i := strings.IndexByte(host, '%'); i >= 0 { // zone of a link-local IPv6
		host = host[:i]
	}
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// KeyForRequest applies the key-exposure rule to a request for the
// settings: the key is given when cfg.ExposeKey is set, or when the
// listener is a loopback one (IsLoopbackListener) and the request's Host
// names a loopback host too. The second condition keeps a web site that
// rebinds its DNS name to 127.0.0.1 from reading the key: its pages send
// their own host name. ok is false with the reason when the key is not
// given.
func KeyForRequest(cfg Config, host string) (key string, ok bool, reason string) {
	if cfg.ExposeKey {
		return cfg.Key, true, ""
	}
	if !IsLoopbackListener(cfg.ListenAddr) {
		return "", false, "The emulator listens on " + cfg.ListenAddr + ", not on a loopback address only, so it does not hand the key to pages: enter it (the emulator's --key; by default the well-known emulator key), or start the emulator with --explorer-expose-key."
	}
	h, _, err := net.SplitHostPort(host)
	if err != nil {
		h = host
	}
	if !isLoopbackHost(h) {
		return "", false, "This page was loaded through the host name " + strconv.Quote(host) + ", not a loopback name such as localhost or 127.0.0.1, so the emulator does not hand it the key: enter it, or open the page through localhost."
	}
	return cfg.Key, true, ""
}

// handler serves the embedded files and the settings.
type handler struct {
	cfg   Config
	files fs.FS
}

// New returns the handler of every path under Prefix (requests outside it
// are 404): GET or HEAD of an embedded file (Prefix alone serves
// index.html; Prefix without its slash redirects there), GET
// SettingsPath; other methods are 405. Responses carry a
// restrictive Content-Security-Policy (same-origin scripts, styles and
// requests only).
func New(cfg Config) http.Handler {
	sub, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err) // the embedded tree always has assets/
	}
	return &handler{cfg: cfg, files: sub}
}

// contentSecurityPolicy allows the page its own scripts, styles and
// requests, nothing inline, nothing from elsewhere, no framing.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == strings.TrimSuffix(Prefix, "/") {
		http.Redirect(w, r, Prefix+"index.html", http.StatusFound)
		return
	}
	name, ok := strings.CutPrefix(r.URL.Path, Prefix)
	if !ok {
		writeError(w, http.StatusNotFound, "No explorer file at "+r.URL.Path+".")
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeError(w, http.StatusMethodNotAllowed, "The data explorer's files are read with GET, not "+r.Method+".")
		return
	}
	hd := w.Header()
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Content-Security-Policy", contentSecurityPolicy)
	hd.Set("Cache-Control", "no-cache")
	if r.URL.Path == SettingsPath {
		h.settings(w, r)
		return
	}
	if name == "" {
		name = "index.html"
	}
	data, err := fs.ReadFile(h.files, name) // fs.ValidPath: no "..", no rooted names
	if err != nil {
		writeError(w, http.StatusNotFound, "No explorer file at "+r.URL.Path+".")
		return
	}
	if ct := contentType(name); ct != "" {
		hd.Set("Content-Type", ct)
	}
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(data))
}

// contentType names the type of an embedded file by its extension (the
// ES modules must be served as JavaScript).
func contentType(name string) string {
	switch path.Ext(name) {
	case ".html":
		return "text/html; charset=utf-8"
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".svg":
		return "image/svg+xml"
	}
	return ""
}

func (h *handler) settings(w http.ResponseWriter, r *http.Request) {
	key, ok, reason := KeyForRequest(h.cfg, r.Host)
	b, _ := json.Marshal(Settings{Key: key, KeyProvided: ok, Reason: reason})
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, b)
}

// errorCodes is the explorer API's one error map: the Cosmos error code of
// each status it answers with (the codes the REST API sends with those
// statuses).
var errorCodes = map[int]string{
	http.StatusNotFound:         "NotFound",
	http.StatusMethodNotAllowed: "MethodNotAllowed",
}

// writeError writes a Cosmos-shaped error body {"code","message"} with
// status and the code errorCodes gives it.
func writeError(w http.ResponseWriter, status int, message string) {
	code, ok := errorCodes[status]
	if !ok { // a status added without its code: the status text's words
		code = strings.ReplaceAll(http.StatusText(status), " ", "")
	}
	b, _ := json.Marshal(struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}{code, message})
	writeJSON(w, status, b)
}

func writeJSON(w http.ResponseWriter, status int, b []byte) {
	hd := w.Header()
	hd.Set("Content-Type", "application/json")
	hd.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
