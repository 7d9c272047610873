package main

// Microsoft-compatible configuration: the flags and environment variables
// of Microsoft's Linux ("vNext") emulator image, which the testcontainers
// modules, .NET Aspire and compose files pass (shared reference
// microsoft-emulator-interface.md §1.3), mapped onto this emulator's
// settings.
//
// Precedence, per setting: command-line flags (ours and Microsoft's alike;
// the last one given wins), then COSMOS_EMULATOR_<FLAG> variables, then
// Microsoft's variables (PORT, PROTOCOL, ...), then the defaults. --port
// replaces the port of --addr when it comes from the same or a stronger
// source, so `--addr 0.0.0.0` (host only) plus PORT=N listens on N.

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cosmos-emulator/cosmos-emulator/server"
)

// source is where a setting's value came from, weakest first.
type source int

const (
	fromDefault source = iota
	fromMicrosoftEnv
	fromOurEnv
	fromFlag
)

// microsoftEnv maps Microsoft's environment variables to the flags they
// set (at the fromMicrosoftEnv level). Of the classic emulator's variables
// (AZURE_COSMOS_EMULATOR_*) only the key is read, as the classic image
// takes it and testcontainers-python passes it with the key its clients
// sign with; the others are ignored, whatever they hold (the Python module
// passes the string None for the partition count).
var microsoftEnv = []struct{ env, flag string }{
	{"PORT", "port"},
	{"PROTOCOL", "protocol"},
	{"ENABLE_EXPLORER", "enable-explorer"},
	{"EXPLORER_PORT", "explorer-port"},
	{"EXPLORER_PROTOCOL", "explorer-protocol"},
	{"GATEWAY_PUBLIC_ENDPOINT", "gateway-endpoint"},
	{"KEY_FILE", "key-file"},
	{"DATA_PATH", "data-path"},
	{"CERT_PATH", "cert-path"},
	{"CERT_SECRET", "cert-secret"},
	{"LOG_LEVEL", "log-level"},
	{"ENABLE_OTLP_EXPORTER", "enable-otlp"},
	{"ENABLE_CONSOLE_EXPORTER", "enable-console"},
	{"ENABLE_TELEMETRY", "enable-telemetry"},
	{"VERBOSE", "verbose"},
	{"QUERY_BUFFER_SIZE_KB", "query-buffer-size"},
	{"ENABLE_INIT_DATA", "enable-init-data"},
	{"INIT_PATH", "init-path"},
	{"HEALTH_PORT", "health-port"},
	{"AZURE_COSMOS_EMULATOR_KEY", "key"},
}

// microsoftEnvOf returns the Microsoft variables that set flag name.
func microsoftEnvOf(name string) []string {
	var out []string
	for _, m := range microsoftEnv {
		if m.flag == name {
			out = append(out, m.env)
		}
	}
	return out
}

// noEffect lists Microsoft settings this emulator accepts (validated, so a
// typo is still an error) without acting on them, and why; setting one
// logs the reason once at start.
var noEffect = map[string]string{
	"gateway-endpoint":  "GET / always advertises the host and port each client dialled",
	"enable-otlp":       "no OpenTelemetry exporter: metrics are served at /_emulator/metrics",
	"enable-console":    "no console telemetry exporter",
	"verbose":           "use --log-level debug for PostgreSQL's and the emulator's details",
	"query-buffer-size": "query pages are bounded by item count and a 4 MB budget",
}

// tracker records, for each flag, the strongest source that set it and how
// it was named there (a flag or a variable), for precedence and errors.
type tracker struct {
	phase  source
	origin string // the name being applied in the environment phases
	src    map[string]source
	name   map[string]string
}

// tracked wraps a flag's Value to record who set it.
type tracked struct {
	flag.Value
	name string
	t    *tracker
}

// Set implements flag.Value.
func (v *tracked) Set(s string) error {
	if err := v.Value.Set(s); err != nil {
		return err
	}
	v.t.src[v.name] = v.t.phase
	if v.t.phase == fromFlag {
		v.t.name[v.name] = "--" + v.name
	} else {
		v.t.name[v.name] = v.t.origin
	}
	return nil
}

// IsBoolFlag reports whether the wrapped flag is boolean (flag package).
func (v *tracked) IsBoolFlag() bool {
	b, ok := v.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// track wraps every flag of fs.
func track(fs *flag.FlagSet) *tracker {
	t := &tracker{src: map[string]source{}, name: map[string]string{}}
	fs.VisitAll(func(f *flag.Flag) { f.Value = &tracked{Value: f.Value, name: f.Name, t: t} })
	return t
}

// set reports whether a flag was set from any source.
func (t *tracker) set(name string) bool { return t.src[name] > fromDefault }

// applyEnv sets each flag from the environment at phase: Microsoft's
// variables or COSMOS_EMULATOR_<FLAG>. An invalid value is an error naming
// the variable, the value and (from the flag's Value) the accepted values.
func (t *tracker) applyEnv(fs *flag.FlagSet, phase source, getenv func(string) string) error {
	t.phase = phase
	apply := func(env, name string) error {
		v := getenv(env)
		if v == "" {
			return nil
		}
		t.origin = env
		if err := fs.Set(name, v); err != nil {
			return fmt.Errorf("%s=%q is not valid: %v", env, v, err)
		}
		return nil
	}
	if phase == fromMicrosoftEnv {
		for _, m := range microsoftEnv {
			if err := apply(m.env, m.flag); err != nil {
				return err
			}
		}
		return nil
	}
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if err == nil && f.Name != "version" {
			err = apply(ourEnv(f.Name), f.Name)
		}
	})
	return err
}

// ourEnv is the COSMOS_EMULATOR_ variable of a flag.
func ourEnv(name string) string {
	return "COSMOS_EMULATOR_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// joinBoolValues rewrites `--flag true|false|other` into `--flag=value` for
// the boolean flags of fs, as Microsoft's entrypoint takes them (the
// testcontainers Go module passes `--enable-explorer false` as two
// arguments; Go's flag package would read that as true plus a stray
// argument). This command takes no positional arguments, so a boolean
// flag followed by a word that is not a flag always means its value; an
// invalid one is then reported as such. Values of other flags are skipped
// over, so a string value such as `--pg false` is not mistaken for a flag.
func joinBoolValues(fs *flag.FlagSet, args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || a == "-" || !strings.HasPrefix(a, "-") {
			// where the flag package stops parsing
			return append(out, args[i:]...)
		}
		out = append(out, a)
		name := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		if strings.Contains(name, "=") {
			continue
		}
		f := fs.Lookup(name)
		if f == nil || i+1 >= len(args) {
			continue
		}
		next := args[i+1]
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			if !strings.HasPrefix(next, "-") {
				out[len(out)-1] = a + "=" + next
				i++
			}
			continue
		}
		out = append(out, next) // the value of a non-boolean flag
		i++
	}
	return out
}

// choice is a string flag restricted to a set of values (matched
// case-insensitively, stored as listed); aliases map extra accepted values
// onto listed ones.
type choice struct {
	p       *string
	allowed []string
}

func (c *choice) String() string {
	if c.p == nil {
		return ""
	}
	return *c.p
}

func (c *choice) Set(s string) error {
	for _, a := range c.allowed {
		if strings.EqualFold(strings.TrimSpace(s), a) {
			*c.p = a
			return nil
		}
	}
	return fmt.Errorf("accepted values are %s", strings.Join(c.allowed, ", "))
}

// strictBool is a boolean flag that takes only true or false (any case),
// as Microsoft's emulator documents its switches.
type strictBool struct{ p *bool }

func (b *strictBool) String() string {
	if b.p == nil {
		return "false"
	}
	return strconv.FormatBool(*b.p)
}

func (b *strictBool) Set(s string) error {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true":
		*b.p = true
	case "false":
		*b.p = false
	default:
		return fmt.Errorf("accepted values are true, false")
	}
	return nil
}

func (b *strictBool) IsBoolFlag() bool { return true }

// intRange is an integer flag within [lo, hi]; what describes the
// accepted values in errors.
type intRange struct {
	p      *int
	lo, hi int
	what   string
}

func (r *intRange) String() string {
	if r.p == nil {
		return "0"
	}
	return strconv.Itoa(*r.p)
}

func (r *intRange) Set(s string) error {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < r.lo || n > r.hi {
		return fmt.Errorf("accepted values are %s", r.what)
	}
	*r.p = n
	return nil
}

// alias is a flag that sets another flag's value (Microsoft's
// --data-path sets --data-dir).
type alias struct {
	fs     *flag.FlagSet
	target string
}

func (a *alias) String() string { return "" }

func (a *alias) Set(s string) error { return a.fs.Set(a.target, s) }

// isAlias reports whether flag name of fs is an alias of another flag.
func isAlias(fs *flag.FlagSet, name string) bool {
	f := fs.Lookup(name)
	if f == nil {
		return false
	}
	v := f.Value
	if t, ok := v.(*tracked); ok {
		v = t.Value
	}
	_, ok := v.(*alias)
	return ok
}

// msSettings holds the Microsoft settings that are not fields of
// server.Config, until they are resolved into it.
type msSettings struct {
	port, healthPort, explorerPort, queryBufferKB int
	rntbdPort                                     int
	enableExplorer, enableTelemetry, enableOTLP   bool
	enableConsole, verbose, enableInitData        bool
	explorerProtocol, gatewayEndpoint, initPath   string
	keyFile                                       string
	logRequests, version                          bool
}

// defineMicrosoftFlags adds Microsoft's flags (and this emulator's flags
// of the same features) to fs.
func defineMicrosoftFlags(fs *flag.FlagSet, ms *msSettings, cfg *cfgTargets) {
	const portRange = "integers from 0 to 65535 (0 picks a free port)"
	ms.port, ms.healthPort, ms.explorerPort, ms.queryBufferKB = 8081, 8080, 1234, 4096
	ms.rntbdPort = 10251
	ms.enableExplorer, ms.enableTelemetry = true, true
	fs.Var(&intRange{p: &ms.port, lo: 0, hi: 65535, what: portRange}, "port", "listen port; replaces the port of --addr")
	fs.Var(&intRange{p: &ms.healthPort, lo: -1 << 31, hi: 65535, what: "integers up to 65535 (0 or negative: no health server)"}, "health-port",
		"plain-HTTP health server port (GET /alive, /ready, /status) on the host of --addr; 0 or negative: none. The default port, when taken, is skipped with a warning; a port given explicitly must be free")
	fs.Var(&strictBool{&ms.enableExplorer}, "enable-explorer", "serve the data explorer at /_explorer/index.html (true or false; false: 404)")
	fs.Var(&intRange{p: &ms.explorerPort, lo: 0, hi: 65535, what: "integers from 0 to 65535 (0: no listener of its own)"}, "explorer-port",
		"port of the data explorer's own listener on the host of --addr (GET / opens the explorer; its API calls reach the gateway through it); 0: none, the explorer stays at /_explorer/index.html on the main port. The default port, when taken, is skipped with a warning; a port given explicitly must be free")
	fs.Var(&intRange{p: &ms.rntbdPort, lo: 0, hi: 65535, what: "integers from 0 to 65535 (0: direct mode off)"}, "rntbd-port",
		"port of the direct-mode (RNTBD over TLS) listener on the host of --addr, the Java SDK's default connection (Microsoft's emulator uses 10250-10255); 0: direct mode off. The default port, when taken, is skipped with a warning; a port given explicitly must be free")
	fs.Var(&choice{&ms.explorerProtocol, []string{"http", "https", "https-insecure"}}, "explorer-protocol", "scheme of the --explorer-port listener: http or https (https-insecure is https, with the gateway's certificate); default: http, so that a browser opens the page without trusting a certificate")
	fs.StringVar(&ms.gatewayEndpoint, "gateway-endpoint", "", "accepted for compatibility; no effect: GET / advertises the host and port the client dialled")
	fs.StringVar(&ms.keyFile, "key-file", "", "file holding the master key (overrides --key from the same or a weaker source)")
	fs.Var(&alias{fs, "data-dir"}, "data-path", "same as --data-dir")
	fs.StringVar(cfg.certBundle, "cert-path", "", "TLS certificate, chain and key in one PKCS#12 (.pfx/.p12) file, or one PEM file holding certificate and key")
	fs.StringVar(cfg.certSecret, "cert-secret", "", "password of the --cert-path PKCS#12 file (prefer the environment variable)")
	fs.Var(&strictBool{&ms.enableOTLP}, "enable-otlp", "accepted for compatibility; no effect (true or false)")
	fs.Var(&strictBool{&ms.enableConsole}, "enable-console", "accepted for compatibility; no effect (true or false)")
	fs.Var(&strictBool{&ms.enableTelemetry}, "enable-telemetry", "accepted for compatibility; this emulator never sends telemetry (true or false)")
	fs.Var(&strictBool{&ms.verbose}, "verbose", "accepted for compatibility; no effect (true or false)")
	fs.Var(&intRange{p: &ms.queryBufferKB, lo: 1, hi: 65536, what: "integers from 1 to 65536"}, "query-buffer-size", "accepted for compatibility; no effect (KB)")
	fs.Var(&strictBool{&ms.enableInitData}, "enable-init-data", "load every top-level *.json file of --init-path (this emulator's --init-data format) at start, in alphabetical order, after --init-data's files (true or false); Microsoft's *.csh scripts are not run")
	fs.StringVar(&ms.initPath, "init-path", "/init", "directory of the files --enable-init-data loads")
	fs.BoolVar(&ms.logRequests, "log-requests", false, "log one line per request (method, path, status, duration, activity id, request charge) at info level; --log-level debug logs them too")
	fs.BoolVar(&ms.version, "version", false, "print the version and exit")
}

// cfgTargets points at the server.Config fields Microsoft's flags set
// directly.
type cfgTargets struct{ certBundle, certSecret *string }

// splitAddr splits --addr into host and port; an address without a port
// (0.0.0.0, ::1, [::1]) is all host, with hasPort false.
func splitAddr(addr string) (host, port string, hasPort bool) {
	if h, p, err := net.SplitHostPort(addr); err == nil {
		return h, p, true
	}
	return strings.TrimSuffix(strings.TrimPrefix(addr, "["), "]"), "", false
}

// readKeyFile reads the master key from a file (Microsoft's KEY_FILE):
// its content without surrounding white space.
func readKeyFile(path string) (string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if info.Size() > 4096 {
		return "", fmt.Errorf("%s is %d bytes, too long for a key", path, info.Size())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	key := strings.TrimSpace(string(b))
	if key == "" {
		return "", fmt.Errorf("%s is empty", path)
	}
	return key, nil
}

// resolveMicrosoft folds the settings of msSettings into cfg by the
// precedence of their sources and returns notes to log at start: the
// Microsoft variables applied, and the settings accepted without effect
// that were set to something else than their default.
func resolveMicrosoft(fs *flag.FlagSet, cfg *server.Config, ms *msSettings, t *tracker) (notes []string, err error) {
	for name, n := range t.name {
		// An alias (--data-path) sets its target (--data-dir), which
		// gets a note of its own: one note per variable.
		if isAlias(fs, name) {
			continue
		}
		if _, ignored := noEffect[name]; t.src[name] == fromMicrosoftEnv && !ignored {
			notes = append(notes, fmt.Sprintf("using %s from Microsoft's emulator variables (for --%s)", n, name))
		}
	}
	// Address: the host of --addr; the port of --port when that is at
	// least as strong as --addr, or when --addr names no port.
	host, port, hasPort := splitAddr(cfg.Addr)
	if !hasPort || (t.set("port") && t.src["port"] >= t.src["addr"]) {
		port = strconv.Itoa(ms.port)
	}
	cfg.Addr = net.JoinHostPort(host, port)
	if cfg.Protocol == "https-insecure" {
		cfg.Protocol = "https"
	}
	if t.set("key-file") && t.src["key-file"] >= t.src["key"] {
		if cfg.Key, err = readKeyFile(ms.keyFile); err != nil {
			return nil, fmt.Errorf("%s=%q: cannot read the key: %v", t.name["key-file"], ms.keyFile, err)
		}
	}
	// One certificate source: the strongest, or both reach the server,
	// which refuses them together.
	if cfg.CertBundle != "" && (t.set("cert") || t.set("cert-key")) {
		pem := max(t.src["cert"], t.src["cert-key"])
		switch {
		case t.src["cert-path"] < pem:
			cfg.CertBundle, cfg.CertBundlePassword = "", ""
		case t.src["cert-path"] > pem:
			cfg.CertFile, cfg.CertKeyFile = "", ""
		}
	}
	if ms.healthPort > 0 {
		cfg.HealthAddr = net.JoinHostPort(host, strconv.Itoa(ms.healthPort))
		cfg.HealthOptional = !t.set("health-port")
	}
	cfg.DisableExplorer = !ms.enableExplorer
	if ms.explorerPort > 0 && ms.enableExplorer {
		cfg.ExplorerAddr = net.JoinHostPort(host, strconv.Itoa(ms.explorerPort))
		cfg.ExplorerOptional = !t.set("explorer-port")
	}
	if ms.rntbdPort > 0 {
		cfg.RNTBDAddr = net.JoinHostPort(host, strconv.Itoa(ms.rntbdPort))
		cfg.RNTBDOptional = !t.set("rntbd-port")
	}
	cfg.ExplorerProtocol = ms.explorerProtocol
	if cfg.ExplorerProtocol == "https-insecure" {
		cfg.ExplorerProtocol = "https"
	}
	initNotes, err := resolveInitPath(cfg, ms, t)
	if err != nil {
		return nil, err
	}
	notes = append(notes, initNotes...)
	for _, name := range sortedKeys(noEffect) {
		if f := fs.Lookup(name); t.set(name) && f.Value.String() != f.DefValue {
			notes = append(notes, fmt.Sprintf("%s is accepted for compatibility with Microsoft's emulator and has no effect here: %s", t.name[name], noEffect[name]))
		}
	}
	slices.Sort(notes)
	return notes, nil
}

// resolveInitPath adds, with --enable-init-data (ENABLE_INIT_DATA=true),
// the top-level *.json files of --init-path in alphabetical order to
// cfg.InitData, after those of --init-data. Microsoft's image runs the
// *.csh (Cosmos shell) scripts of that directory, which this emulator
// cannot; a note names them. Microsoft skips its scripts when data exists;
// here the files load anyway, which changes nothing that exists (seed
// creates only what is absent). A directory that does not exist holds no
// files (a note says so); one that cannot be read is an error.
func resolveInitPath(cfg *server.Config, ms *msSettings, t *tracker) (notes []string, err error) {
	if !ms.enableInitData {
		return nil, nil
	}
	name := t.name["init-path"]
	if name == "" {
		name = "--init-path"
	}
	entries, err := os.ReadDir(ms.initPath)
	if errors.Is(err, fs.ErrNotExist) {
		return []string{fmt.Sprintf("%s %s does not exist: no init data to load", name, ms.initPath)}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s=%q: cannot read the init data directory: %v", name, ms.initPath, err)
	}
	var csh []string
	for _, e := range entries { // ReadDir sorts by name
		if e.IsDir() {
			continue
		}
		switch strings.ToLower(filepath.Ext(e.Name())) {
		case ".json":
			cfg.InitData = append(cfg.InitData, filepath.Join(ms.initPath, e.Name()))
		case ".csh":
			csh = append(csh, e.Name())
		}
	}
	if len(csh) > 0 {
		notes = append(notes, fmt.Sprintf("%s %s: Cosmos shell scripts are not supported and are not run: %s (put the data in *.json files of --init-data's format)", name, ms.initPath, strings.Join(csh, ", ")))
	}
	return notes, nil
}

// logLevels are the values of --log-level (Microsoft's list).
var logLevels = []string{"quiet", "error", "warn", "info", "debug", "trace"}

// slogLevel maps a --log-level value to the logger's level; quiet logs
// nothing. debug and trace both log every request.
func slogLevel(s string) (level slog.Level, quiet bool) {
	switch s {
	case "quiet":
		return slog.LevelError + 100, true
	case "error":
		return slog.LevelError, false
	case "warn":
		return slog.LevelWarn, false
	case "debug", "trace":
		return slog.LevelDebug, false
	}
	return slog.LevelInfo, false
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
