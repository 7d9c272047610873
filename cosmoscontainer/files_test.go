package cosmoscontainer_test

// Static checks of the container setup (Dockerfile and docker-compose.yml at
// the repository root), for machines without a Docker engine: they parse
// both files and check that they describe a working deployment (the image
// builds this command from pinned base images given as build arguments, Go
// as in go.mod, runs it as a non-root user with the managed PostgreSQL in a
// /data volume, serves http by default like Microsoft's image; the compose
// service publishes and health-checks the port it listens on, with the
// protocol it serves). The container tests of this package and
// scripts/ci/docker.sh run both files for real where an engine exists.
//
// Each check is also run against deliberately broken copies of the files, so
// that a check that can no longer fail is noticed.

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

const (
	composePath     = repoRoot + "/docker-compose.yml"
	dockerfilePath  = repoRoot + "/Dockerfile"
	goModPath       = repoRoot + "/go.mod"
	emulatorService = "cosmos-emulator"
	emulatorHost    = "0.0.0.0" // all interfaces, no port: PORT applies
	defaultPort     = "8081"
	explorerPort    = "1234" // the explorer's own listener (EXPLORER_PORT's default)
	dataDir         = "/data"
	envPrefix       = "COSMOS_EMULATOR_"
	healthPath      = "/_emulator/health"
)

// ---- compose file model -----------------------------------------------------

// composeFile is the part of the compose specification these tests look at.
type composeFile struct {
	Version  *string               `yaml:"version"`
	Services map[string]service    `yaml:"services"`
	Volumes  map[string]*yaml.Node `yaml:"volumes"` // values are often empty
}

// service is one compose service.
type service struct {
	Image       string        `yaml:"image"`
	Build       *buildSpec    `yaml:"build"`
	Command     stringList    `yaml:"command"`
	Entrypoint  stringList    `yaml:"entrypoint"`
	Environment envMap        `yaml:"environment"`
	Ports       []portSpec    `yaml:"ports"`
	DependsOn   dependsOn     `yaml:"depends_on"`
	Volumes     []volumeMount `yaml:"volumes"`
	Healthcheck *healthcheck  `yaml:"healthcheck"`
}

// buildSpec is a service's build section, short (a context path) or long.
type buildSpec struct {
	Context    string `yaml:"context"`
	Dockerfile string `yaml:"dockerfile"`
}

// UnmarshalYAML accepts `build: DIR` and `build: {context, dockerfile}`.
func (b *buildSpec) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*b = buildSpec{Context: n.Value}
		return nil
	}
	type plain buildSpec
	return n.Decode((*plain)(b))
}

// stringList is a command, entrypoint or health check test, written as a
// list or as one string (split on white space; compose splits like a shell,
// but no file here relies on quoting).
type stringList []string

// UnmarshalYAML accepts a sequence or a scalar.
func (s *stringList) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*s = strings.Fields(n.Value)
		return nil
	}
	var l []string
	if err := n.Decode(&l); err != nil {
		return err
	}
	*s = l
	return nil
}

// envMap is a service's environment, written as a mapping or as a list of
// KEY=VALUE entries.
type envMap map[string]string

// UnmarshalYAML accepts both forms of environment.
func (e *envMap) UnmarshalYAML(n *yaml.Node) error {
	m := envMap{}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			m[n.Content[i].Value] = n.Content[i+1].Value
		}
	case yaml.SequenceNode:
		for _, item := range n.Content {
			k, v, _ := strings.Cut(item.Value, "=")
			m[k] = v
		}
	default:
		return fmt.Errorf("line %d: environment must be a mapping or a list", n.Line)
	}
	*e = m
	return nil
}

// portSpec is one published port.
type portSpec struct {
	HostIP    string `yaml:"host_ip"`
	Published string `yaml:"published"`
	Target    string `yaml:"target"`
	Protocol  string `yaml:"protocol"`
}

// UnmarshalYAML accepts the short syntax [[HOST_IP:]PUBLISHED:]TARGET[/PROTO]
// and the long syntax.
func (p *portSpec) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		type plain portSpec
		return n.Decode((*plain)(p))
	}
	spec, proto, _ := strings.Cut(n.Value, "/")
	*p = portSpec{Protocol: proto}
	parts := strings.Split(spec, ":")
	p.Target = parts[len(parts)-1]
	if len(parts) >= 2 {
		p.Published = parts[len(parts)-2]
	}
	if len(parts) >= 3 {
		p.HostIP = strings.Join(parts[:len(parts)-2], ":")
	}
	return nil
}

// dependsOn maps each dependency to its condition.
type dependsOn map[string]string

// UnmarshalYAML accepts a list of services (condition service_started) or a
// mapping of service to {condition}.
func (d *dependsOn) UnmarshalYAML(n *yaml.Node) error {
	m := dependsOn{}
	switch n.Kind {
	case yaml.SequenceNode:
		for _, item := range n.Content {
			m[item.Value] = "service_started"
		}
	case yaml.MappingNode:
		var long map[string]struct {
			Condition string `yaml:"condition"`
		}
		if err := n.Decode(&long); err != nil {
			return err
		}
		for name, dep := range long {
			cond := dep.Condition
			if cond == "" {
				cond = "service_started"
			}
			m[name] = cond
		}
	default:
		return fmt.Errorf("line %d: depends_on must be a list or a mapping", n.Line)
	}
	*d = m
	return nil
}

// volumeMount is one entry of a service's volumes.
type volumeMount struct {
	Type   string `yaml:"type"`
	Source string `yaml:"source"`
	Target string `yaml:"target"`
}

// UnmarshalYAML accepts SOURCE:TARGET[:MODE], a bare TARGET (anonymous
// volume) and the long syntax.
func (v *volumeMount) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		type plain volumeMount
		return n.Decode((*plain)(v))
	}
	parts := strings.Split(n.Value, ":")
	if len(parts) == 1 {
		*v = volumeMount{Type: "volume", Target: parts[0]}
		return nil
	}
	*v = volumeMount{Type: "volume", Source: parts[0], Target: parts[1]}
	if strings.HasPrefix(v.Source, ".") || strings.HasPrefix(v.Source, "/") || strings.HasPrefix(v.Source, "~") {
		v.Type = "bind"
	}
	return nil
}

// healthcheck is a service's health check.
type healthcheck struct {
	Test     stringList `yaml:"test"`
	Disable  bool       `yaml:"disable"`
	Interval string     `yaml:"interval"`
	Timeout  string     `yaml:"timeout"`
	Retries  int        `yaml:"retries"`
}

// command returns the shell command text of the test, or "" when the check
// is disabled or missing.
func (h *healthcheck) command() string {
	if h == nil || h.Disable || len(h.Test) == 0 {
		return ""
	}
	switch h.Test[0] {
	case "NONE":
		return ""
	case "CMD", "CMD-SHELL":
		return strings.Join(h.Test[1:], " ")
	default: // string form, run by the shell
		return strings.Join(h.Test, " ")
	}
}

// parseCompose decodes a compose file. Keys not modelled above are ignored.
func parseCompose(data []byte) (*composeFile, error) {
	var cf composeFile
	if err := yaml.Unmarshal(data, &cf); err != nil {
		return nil, err
	}
	return &cf, nil
}

// ---- Dockerfile model -------------------------------------------------------

// instruction is one Dockerfile instruction, continuation lines joined.
type instruction struct {
	Cmd  string // upper case, e.g. "RUN"
	Args string
	Line int
}

// stage is one FROM stage.
type stage struct {
	RawImage     string // as written, e.g. ${BUILD_IMAGE}
	Image        string // after ARG substitution
	Name         string
	Instructions []instruction
}

// dockerfile is a minimally parsed Dockerfile.
type dockerfile struct {
	Args   map[string]string // global ARG defaults (before the first FROM)
	Stages []stage
}

// find returns the instructions of the stage with the given command.
func (s stage) find(cmd string) []instruction {
	var out []instruction
	for _, in := range s.Instructions {
		if in.Cmd == cmd {
			out = append(out, in)
		}
	}
	return out
}

// last returns the final stage, the one that becomes the image.
func (d *dockerfile) last() stage {
	if len(d.Stages) == 0 {
		return stage{}
	}
	return d.Stages[len(d.Stages)-1]
}

// execForm returns the arguments of a JSON (exec form) instruction such as
// ENTRYPOINT ["a", "b"], or an error for the shell form.
func execForm(in instruction) ([]string, error) {
	var args []string
	if err := json.Unmarshal([]byte(in.Args), &args); err != nil {
		return nil, fmt.Errorf("line %d: %s is not in exec (JSON) form: %v", in.Line, in.Cmd, err)
	}
	return args, nil
}

// env returns the ENV values set in the stage.
func (s stage) env() map[string]string {
	m := map[string]string{}
	for _, in := range s.find("ENV") {
		// Only the KEY=VALUE form (several per line allowed, no quoting).
		for _, kv := range strings.Fields(in.Args) {
			if k, v, ok := strings.Cut(kv, "="); ok {
				m[k] = strings.Trim(v, `"`)
			}
		}
	}
	return m
}

var argRef = regexp.MustCompile(`\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?`)

// expand substitutes the global ARGs declared so far into v.
func (d *dockerfile) expand(v string) string {
	return argRef.ReplaceAllStringFunc(v, func(ref string) string {
		return d.Args[argRef.FindStringSubmatch(ref)[1]]
	})
}

// parseDockerfile parses Dockerfile text: comments and parser directives are
// dropped, lines ending in a backslash are joined, and instructions are
// grouped by FROM stage.
func parseDockerfile(text string) (*dockerfile, error) {
	df := &dockerfile{Args: map[string]string{}}
	var cur *instruction
	var all []instruction
	for i, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		cont := strings.HasSuffix(trimmed, "\\")
		trimmed = strings.TrimSpace(strings.TrimSuffix(trimmed, "\\"))
		if cur == nil {
			cmd, args, _ := strings.Cut(trimmed, " ")
			cur = &instruction{Cmd: strings.ToUpper(cmd), Args: strings.TrimSpace(args), Line: i + 1}
		} else {
			cur.Args = strings.TrimSpace(cur.Args + " " + trimmed)
		}
		if !cont {
			all = append(all, *cur)
			cur = nil
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("line %d: unterminated continuation", cur.Line)
	}
	for _, in := range all {
		switch {
		case in.Cmd == "ARG" && len(df.Stages) == 0:
			k, v, _ := strings.Cut(in.Args, "=")
			df.Args[k] = df.expand(v)
		case in.Cmd == "FROM":
			fields := strings.Fields(in.Args)
			var st stage
			for j := 0; j < len(fields); j++ {
				switch {
				case strings.HasPrefix(fields[j], "--"):
				case strings.EqualFold(fields[j], "AS") && j+1 < len(fields):
					st.Name = fields[j+1]
					j++
				default:
					st.RawImage, st.Image = fields[j], df.expand(fields[j])
				}
			}
			df.Stages = append(df.Stages, st)
		case len(df.Stages) == 0:
			return nil, fmt.Errorf("line %d: %s before the first FROM", in.Line, in.Cmd)
		default:
			s := &df.Stages[len(df.Stages)-1]
			s.Instructions = append(s.Instructions, in)
		}
	}
	return df, nil
}

// ---- emulator command line --------------------------------------------------

// flagValues returns the values of --name (or -name, =value forms too) in
// args, in order.
func flagValues(args []string, name string) []string {
	var vals []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			continue
		}
		a = strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		if a == name && i+1 < len(args) {
			vals = append(vals, args[i+1])
			i++
		} else if v, ok := strings.CutPrefix(a, name+"="); ok {
			vals = append(vals, v)
		}
	}
	return vals
}

// envName returns the environment variable standing for a flag.
func envName(flag string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// emulatorConfig is the effective command line and environment of the
// emulator container: compose's entrypoint/command override the image's,
// and compose's environment is layered over the image's ENV.
type emulatorConfig struct {
	Args []string
	Env  map[string]string
}

// microsoftVar maps flags to the Microsoft emulator variables that set them
// (the weakest source, below COSMOS_EMULATOR_<FLAG>), and flagAlias
// Microsoft's flag names to ours.
var (
	microsoftVar = map[string]string{"protocol": "PROTOCOL", "port": "PORT", "data-dir": "DATA_PATH"}
	flagAlias    = map[string]string{"data-dir": "data-path"}
)

// value returns the effective value of a single-valued flag: the last one
// on the command line (under its name or Microsoft's), else its
// COSMOS_EMULATOR_ variable, else Microsoft's variable.
func (c emulatorConfig) value(flag string) (string, bool) {
	vals := flagValues(c.Args, flag)
	if alias, ok := flagAlias[flag]; ok {
		vals = append(vals, flagValues(c.Args, alias)...)
	}
	if len(vals) > 0 {
		return vals[len(vals)-1], true
	}
	if v, ok := c.Env[envName(flag)]; ok {
		return v, true
	}
	v, ok := c.Env[microsoftVar[flag]]
	return v, ok && microsoftVar[flag] != ""
}

// listen returns the host and port the emulator listens on: --addr's host;
// its port, else --port / PORT, else 8081 (the port rule of the command,
// simplified to what these files use).
func (c emulatorConfig) listen() (host, port string) {
	addr, _ := c.value("addr")
	if h, p, err := net.SplitHostPort(addr); err == nil {
		return h, p
	}
	if p, ok := c.value("port"); ok {
		return addr, p
	}
	return addr, defaultPort
}

// list returns all values of a repeatable, comma-separated flag, from the
// command line and the environment.
func (c emulatorConfig) list(flag string) []string {
	var out []string
	for _, v := range append(flagValues(c.Args, flag), c.Env[envName(flag)]) {
		for _, item := range strings.Split(v, ",") {
			if item = strings.TrimSpace(item); item != "" {
				out = append(out, item)
			}
		}
	}
	return out
}

func effectiveConfig(svc service, df *dockerfile) (emulatorConfig, error) {
	img := df.last()
	var entrypoint, cmd []string
	if eps := img.find("ENTRYPOINT"); len(eps) > 0 {
		args, err := execForm(eps[len(eps)-1])
		if err != nil {
			return emulatorConfig{}, err
		}
		entrypoint = args
	}
	if cmds := img.find("CMD"); len(cmds) > 0 {
		args, err := execForm(cmds[len(cmds)-1])
		if err != nil {
			return emulatorConfig{}, err
		}
		cmd = args
	}
	if svc.Entrypoint != nil {
		// Overriding the entrypoint also drops the image's CMD.
		entrypoint, cmd = svc.Entrypoint, nil
	}
	if svc.Command != nil {
		cmd = svc.Command
	}
	env := img.env()
	for k, v := range svc.Environment {
		env[k] = v
	}
	return emulatorConfig{Args: append(slices.Clone(entrypoint), cmd...), Env: env}, nil
}

// ---- checks -----------------------------------------------------------------

// problems collects failed checks.
type problems []string

func (p *problems) addf(format string, args ...any) { *p = append(*p, fmt.Sprintf(format, args...)) }

// goVersion returns the version of the go directive in go.mod (e.g. 1.26.8).
func goVersion(goMod string) string {
	m := regexp.MustCompile(`(?m)^go\s+(\d+\.\d+(?:\.\d+)?)\s*$`).FindStringSubmatch(goMod)
	if m == nil {
		return ""
	}
	return m[1]
}

// pinnedImage matches an image reference with an exact version tag
// (name:1.2[.3][-variant]) and optionally a digest.
var pinnedImage = regexp.MustCompile(`^[a-z0-9./_-]+:\d+\.\d+(\.\d+)?(-[a-z0-9.-]+)?(@sha256:[0-9a-f]{64})?$`)

// versionVar and revisionVar are the variables the build stamps (server.Version
// and server.Revision).
const (
	versionVar  = "github.com/cosmos-emulator/cosmos-emulator/server.Version"
	revisionVar = "github.com/cosmos-emulator/cosmos-emulator/server.Revision"
)

// labelPair matches one key="value" pair of a LABEL instruction.
var labelPair = regexp.MustCompile(`([A-Za-z0-9._-]+)="([^"]*)"`)

// postgresPackage matches the PostgreSQL server package of a major version.
var postgresPackage = regexp.MustCompile(`postgresql-(\$\{PG_MAJOR\}|\$PG_MAJOR|\d+)`)

// checkDockerfile checks the image definition on its own; text is the raw
// Dockerfile (for what the parser drops).
func checkDockerfile(df *dockerfile, text, goMod string) problems {
	var p problems
	if regexp.MustCompile(`(?mi)^#\s*syntax\s*=`).MatchString(text) {
		p.addf("Dockerfile: a # syntax= directive makes BuildKit pull a frontend image (no registry in CI)")
	}
	if len(df.Stages) < 2 {
		p.addf("Dockerfile: want a multi-stage build (>= 2 FROM), got %d stage(s)", len(df.Stages))
		return p
	}
	build, final := df.Stages[0], df.last()

	if want := goVersion(goMod); df.Args["GO_VERSION"] != want {
		p.addf("Dockerfile: ARG GO_VERSION=%q does not match go.mod's go %s", df.Args["GO_VERSION"], want)
	}
	for _, a := range []struct{ arg, raw, image, want string }{
		{"BUILD_IMAGE", build.RawImage, build.Image, "golang:" + df.Args["GO_VERSION"] + "-"},
		{"RUNTIME_IMAGE", final.RawImage, final.Image, "debian:"},
	} {
		if a.raw != "${"+a.arg+"}" && a.raw != "$"+a.arg {
			p.addf("Dockerfile: stage FROM %s, want the build argument ${%s}", a.raw, a.arg)
		}
		if !strings.HasPrefix(a.image, a.want) || !pinnedImage.MatchString(a.image) {
			p.addf("Dockerfile: ARG %s defaults to %q, want a pinned %s<version> image", a.arg, a.image, a.want)
		}
	}

	var built, stamped bool
	for _, stg := range df.Stages {
		for _, run := range stg.find("RUN") {
			if strings.Contains(run.Args, "--mount") {
				p.addf("Dockerfile line %d: RUN --mount needs BuildKit; testcontainers builds with the classic builder", run.Line)
			}
			if strings.Contains(run.Args, "go build") && strings.Contains(run.Args, "./cmd/cosmos-emulator") {
				built = true
				stamped = strings.Contains(run.Args, "-X "+versionVar+"=${VERSION}") && strings.Contains(run.Args, "-X "+revisionVar+"=${REVISION}")
				if !strings.Contains(run.Args, "CGO_ENABLED=0") {
					p.addf("Dockerfile line %d: go build without CGO_ENABLED=0; the runtime image has no Go toolchain and the binary should be static", run.Line)
				}
			}
		}
	}
	if !built {
		p.addf("Dockerfile: no build stage RUNs go build ./cmd/cosmos-emulator")
	}
	if !stamped {
		p.addf("Dockerfile: go build does not stamp %s=${VERSION} and %s=${REVISION} (-ldflags -X), so --version would not name the image's version", versionVar, revisionVar)
	}
	if df.Args["VERSION"] == "" {
		p.addf("Dockerfile: no ARG VERSION=<the emulator's version> before the first FROM")
	}

	// OCI labels: what registries and `docker inspect` show.
	labels := map[string]string{}
	for _, l := range final.find("LABEL") {
		for _, m := range labelPair.FindAllStringSubmatch(l.Args, -1) {
			labels[m[1]] = m[2]
		}
	}
	for key, want := range map[string]string{
		"org.opencontainers.image.version":  "${VERSION}",
		"org.opencontainers.image.revision": "${REVISION}",
		"org.opencontainers.image.source":   "https://github.com/cosmos-emulator/cosmos-emulator",
		"org.opencontainers.image.title":    "cosmos-emulator",
	} {
		if labels[key] != want {
			p.addf("Dockerfile: LABEL %s=%q, want %q", key, labels[key], want)
		}
	}

	var copied bool
	for _, c := range final.find("COPY") {
		if strings.Contains(c.Args, "--from=") && strings.Contains(c.Args, "cosmos-emulator") {
			copied = true
		}
	}
	if !copied {
		p.addf("Dockerfile: final stage does not COPY --from the build stage the cosmos-emulator binary")
	}
	var postgres bool
	for _, run := range final.find("RUN") {
		if strings.Contains(run.Args, "apt-get install") && postgresPackage.MatchString(run.Args) {
			postgres = true
		}
	}
	if !postgres {
		p.addf("Dockerfile: final stage does not install postgresql-<major> (the managed PostgreSQL)")
	}

	var exposed bool
	for _, e := range final.find("EXPOSE") {
		for _, port := range strings.Fields(e.Args) {
			if strings.TrimSuffix(port, "/tcp") == "8081" {
				exposed = true
			}
		}
	}
	if !exposed {
		p.addf("Dockerfile: final stage does not EXPOSE 8081")
	}
	var volume bool
	for _, v := range final.find("VOLUME") {
		volume = volume || strings.Contains(v.Args, `"`+dataDir+`"`) || strings.TrimSpace(v.Args) == dataDir
	}
	if !volume {
		p.addf("Dockerfile: no VOLUME %s", dataDir)
	}
	img := emulatorConfig{Env: final.env()}
	if dir, _ := img.value("data-dir"); dir != dataDir {
		p.addf("Dockerfile: the data directory (DATA_PATH or %s) is %q, want %s (the volume)", envName("data-dir"), dir, dataDir)
	}
	if proto, _ := img.value("protocol"); proto != "http" || img.Env["PROTOCOL"] != "http" {
		p.addf("Dockerfile: PROTOCOL=%q (effective %q), want http set through PROTOCOL, which users override: Microsoft's image serves http unless PROTOCOL=https", img.Env["PROTOCOL"], proto)
	}
	if host, port := img.listen(); host != emulatorHost || port != defaultPort {
		p.addf("Dockerfile: listens on %s:%s, want %s:%s", host, port, emulatorHost, defaultPort)
	}
	if _, ok := img.Env[envName("addr")]; !ok || strings.Contains(img.Env[envName("addr")], ":") {
		p.addf("Dockerfile: %s=%q, want a host without a port, so that PORT (the testcontainers Node module sets it) applies", envName("addr"), img.Env[envName("addr")])
	}

	hcs := final.find("HEALTHCHECK")
	switch {
	case len(hcs) == 0:
		p.addf("Dockerfile: final stage has no HEALTHCHECK")
	case strings.EqualFold(strings.TrimSpace(hcs[len(hcs)-1].Args), "NONE"):
		p.addf("Dockerfile: HEALTHCHECK NONE")
	default:
		hc := hcs[len(hcs)-1].Args
		if !strings.Contains(hc, "http://127.0.0.1:${HEALTH_PORT:-8080}/ready") {
			p.addf("Dockerfile: HEALTHCHECK %q does not query the health server's /ready", hc)
		}
	}

	users := final.find("USER")
	if len(users) == 0 {
		p.addf("Dockerfile: final stage runs as root (no USER)")
	} else if u, _, _ := strings.Cut(users[len(users)-1].Args, ":"); u == "root" || u == "0" {
		p.addf("Dockerfile: final stage runs as root (USER %s)", users[len(users)-1].Args)
	}

	eps := final.find("ENTRYPOINT")
	if len(eps) == 0 {
		p.addf("Dockerfile: final stage has no ENTRYPOINT")
	} else if args, err := execForm(eps[len(eps)-1]); err != nil {
		p.addf("Dockerfile: %v", err)
	} else if len(args) == 0 || filepath.Base(args[len(args)-1]) != "cosmos-emulator" {
		// Last, so that `docker run IMAGE --flag` (and testcontainers'
		// WithCmdArgs) reach the emulator.
		p.addf("Dockerfile: ENTRYPOINT %q does not end with cosmos-emulator", args)
	}
	return p
}

// checkCompose checks the compose file together with the image it builds.
func checkCompose(cf *composeFile, df *dockerfile, root string) problems {
	var p problems
	if cf.Version != nil {
		p.addf("compose: top-level version: is obsolete in the compose specification")
	}
	emu, ok := cf.Services[emulatorService]
	if !ok {
		p.addf("compose: no %q service", emulatorService)
		return p
	}

	// Emulator image.
	if emu.Build == nil {
		p.addf("compose: %s has no build section", emulatorService)
	} else {
		dockerfileName := emu.Build.Dockerfile
		if dockerfileName == "" {
			dockerfileName = "Dockerfile"
		}
		ctx := filepath.Join(root, emu.Build.Context)
		if abs, err := filepath.Abs(ctx); err != nil {
			p.addf("compose: %v", err)
		} else if rootAbs, _ := filepath.Abs(root); abs != rootAbs {
			p.addf("compose: build context %q is not the repository root", emu.Build.Context)
		} else if _, err := os.Stat(filepath.Join(ctx, dockerfileName)); err != nil {
			p.addf("compose: build dockerfile: %v", err)
		}
	}
	if emu.Image == "" {
		p.addf("compose: %s has no image name (scripts/ci/docker.sh builds it under that name)", emulatorService)
	}

	// Command line and environment.
	cfg, err := effectiveConfig(emu, df)
	if err != nil {
		p.addf("compose: %v", err)
		return p
	}
	host, listenPort := cfg.listen()
	if host != emulatorHost {
		p.addf("compose: the emulator listens on host %q (args %q), want %s", host, cfg.Args, emulatorHost)
	}

	var published, explorer bool
	for _, port := range emu.Ports {
		if port.Protocol != "" && port.Protocol != "tcp" {
			continue
		}
		// The well-known key opens the data to whoever reaches the port:
		// loopback only, unless the user publishes it deliberately.
		if port.HostIP != "127.0.0.1" && port.HostIP != "::1" {
			p.addf("compose: %s publishes port %s on %q, want loopback only (127.0.0.1)", emulatorService, port.Published, port.HostIP)
		}
		switch {
		case port.Target == listenPort && port.Published == "8081":
			published = true
		case port.Target == explorerPort && port.Published == explorerPort:
			explorer = true
		}
	}
	if !published {
		p.addf("compose: %s does not publish host port 8081 to the listening port %q: %+v", emulatorService, listenPort, emu.Ports)
	}
	if !explorer {
		p.addf("compose: %s does not publish the data explorer's port %s (the start-up lines name it): %+v", emulatorService, explorerPort, emu.Ports)
	}

	proto, _ := cfg.value("protocol")
	hc := emu.Healthcheck.command()
	switch {
	case !strings.Contains(hc, "curl") || !strings.Contains(hc, "127.0.0.1:"+listenPort+healthPath):
		p.addf("compose: %s health check %q does not curl 127.0.0.1:%s%s", emulatorService, hc, listenPort, healthPath)
	case proto == "https" && !strings.Contains(hc, "https://"):
		p.addf("compose: %s serves https but the health check %q does not use it", emulatorService, hc)
	case proto != "https" && !strings.Contains(hc, "http://"):
		p.addf("compose: %s serves %s but the health check %q does not use it", emulatorService, proto, hc)
	}

	if pg, _ := cfg.value("pg"); pg == "" {
		dir, _ := cfg.value("data-dir")
		var dataVolume bool
		for _, v := range emu.Volumes {
			if v.Target == dir && v.Type == "volume" {
				if _, declared := cf.Volumes[v.Source]; v.Source != "" && declared {
					dataVolume = true
				}
			}
		}
		if !dataVolume {
			p.addf("compose: %s has no named volume (declared under volumes:) at its data directory %q, so its data would not survive re-creation", emulatorService, dir)
		}
	}

	if proto == "https" {
		if hosts := cfg.list("tls-host"); !slices.Contains(hosts, emulatorService) {
			p.addf("compose: --tls-host %q does not include the service name %q", hosts, emulatorService)
		}
	}
	return p
}

// ---- tests ------------------------------------------------------------------

// repoFiles holds the texts of the files under test.
type repoFiles struct {
	compose, dockerfile, goMod string
}

func readRepoFiles(t *testing.T) repoFiles {
	t.Helper()
	read := func(path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	return repoFiles{compose: read(composePath), dockerfile: read(dockerfilePath), goMod: read(goModPath)}
}

// check parses the files and runs every check.
func check(t *testing.T, f repoFiles) problems {
	t.Helper()
	df, err := parseDockerfile(f.dockerfile)
	if err != nil {
		return problems{"Dockerfile: " + err.Error()}
	}
	cf, err := parseCompose([]byte(f.compose))
	if err != nil {
		return problems{"compose: " + err.Error()}
	}
	p := checkDockerfile(df, f.dockerfile, f.goMod)
	return append(p, checkCompose(cf, df, repoRoot)...)
}

func TestContainerFiles(t *testing.T) {
	f := readRepoFiles(t)
	for _, problem := range check(t, f) {
		t.Error(problem)
	}
}

// TestContainerChecksCatchBreakage breaks the real files in one way each and
// expects the matching check to complain, so every check is known to be
// able to fail.
func TestContainerChecksCatchBreakage(t *testing.T) {
	type edit struct{ old, new string }
	tests := []struct {
		name       string
		compose    []edit
		dockerfile []edit
		want       string // substring of one of the problems
	}{
		// Dockerfile.
		{name: "syntax directive", dockerfile: []edit{{"# Azure Cosmos DB emulator image", "# syntax=docker/dockerfile:1\n# Azure Cosmos DB emulator image"}}, want: "syntax="},
		{name: "single stage", dockerfile: []edit{{"FROM ${RUNTIME_IMAGE} AS runtime", "# (no second stage)"}}, want: ">= 2 FROM"},
		{name: "go version differs from go.mod", dockerfile: []edit{{"ARG GO_VERSION=1.26.8", "ARG GO_VERSION=1.22.1"}}, want: "does not match go.mod"},
		{name: "build image not an argument", dockerfile: []edit{{"FROM ${BUILD_IMAGE} AS build", "FROM golang:1.26.8-bookworm AS build"}}, want: "${BUILD_IMAGE}"},
		{name: "runtime image not an argument", dockerfile: []edit{{"FROM ${RUNTIME_IMAGE} AS runtime", "FROM debian:12.11-slim AS runtime"}}, want: "${RUNTIME_IMAGE}"},
		{name: "build image floating", dockerfile: []edit{{"ARG BUILD_IMAGE=golang:${GO_VERSION}-bookworm", "ARG BUILD_IMAGE=golang:latest"}}, want: "pinned golang:"},
		{name: "runtime image floating", dockerfile: []edit{{"ARG RUNTIME_IMAGE=debian:12.11-slim", "ARG RUNTIME_IMAGE=debian:bookworm-slim"}}, want: "pinned debian:"},
		{name: "builds another package", dockerfile: []edit{{"./cmd/cosmos-emulator\n", "./cmd/other\n"}}, want: "go build ./cmd/cosmos-emulator"},
		{name: "version not stamped", dockerfile: []edit{{" -X github.com/cosmos-emulator/cosmos-emulator/server.Version=${VERSION}", ""}}, want: "does not stamp"},
		{name: "no version argument", dockerfile: []edit{{"ARG VERSION=", "ARG OTHER_VERSION="}}, want: "ARG VERSION"},
		{name: "no version label", dockerfile: []edit{{`org.opencontainers.image.version="${VERSION}"`, `org.opencontainers.image.ver="${VERSION}"`}}, want: "image.version"},
		{name: "revision label fixed", dockerfile: []edit{{`org.opencontainers.image.revision="${REVISION}"`, `org.opencontainers.image.revision="main"`}}, want: "image.revision"},
		{name: "cgo enabled", dockerfile: []edit{{"CGO_ENABLED=0 go build", "go build"}}, want: "CGO_ENABLED=0"},
		{name: "BuildKit-only mount", dockerfile: []edit{{"RUN go mod download", "RUN --mount=type=cache,target=/go/pkg/mod go mod download"}}, want: "--mount"},
		{name: "binary not copied", dockerfile: []edit{{"COPY --from=build", "COPY"}}, want: "COPY --from"},
		{name: "no PostgreSQL inside", dockerfile: []edit{{`"postgresql-${PG_MAJOR}" `, ""}}, want: "postgresql-<major>"},
		{name: "port not exposed", dockerfile: []edit{{"EXPOSE 8081", "EXPOSE 9000"}}, want: "EXPOSE 8081"},
		{name: "no data volume", dockerfile: []edit{{`VOLUME ["/data"]`, `VOLUME ["/var/tmp"]`}}, want: "VOLUME /data"},
		{name: "data dir outside the volume", dockerfile: []edit{{"    DATA_PATH=/data\n", "    DATA_PATH=/tmp\n"}}, want: "the volume"},
		{name: "https by default", dockerfile: []edit{{"    PROTOCOL=http \\", "    PROTOCOL=https \\"}}, want: "want http"},
		{name: "protocol through our variable", dockerfile: []edit{{"    PROTOCOL=http ", "    COSMOS_EMULATOR_PROTOCOL=http "}}, want: "set through PROTOCOL"},
		{name: "listens on loopback", dockerfile: []edit{{"COSMOS_EMULATOR_ADDR=0.0.0.0", "COSMOS_EMULATOR_ADDR=127.0.0.1"}}, want: "listens on 127.0.0.1"},
		{name: "fixed port beats PORT", dockerfile: []edit{{"COSMOS_EMULATOR_ADDR=0.0.0.0", "COSMOS_EMULATOR_ADDR=0.0.0.0:8081"}}, want: "PORT"},
		{name: "no health check", dockerfile: []edit{{"HEALTHCHECK", "# HEALTHCHECK"}}, want: "no HEALTHCHECK"},
		{name: "health check on wrong path", dockerfile: []edit{{"${HEALTH_PORT:-8080}/ready", "${HEALTH_PORT:-8080}/"}}, want: "HEALTHCHECK"},
		{name: "runs as root", dockerfile: []edit{{"USER cosmos:cosmos", "USER root"}}, want: "runs as root"},
		{name: "shell-form entrypoint", dockerfile: []edit{{`ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/bin/cosmos-emulator"]`, `ENTRYPOINT /usr/bin/tini -- /usr/local/bin/cosmos-emulator`}}, want: "exec (JSON) form"},
		{name: "entrypoint swallows arguments", dockerfile: []edit{{`"/usr/local/bin/cosmos-emulator"]`, `"/usr/local/bin/cosmos-emulator", "--log-level"]`}}, want: "does not end with cosmos-emulator"},
		{name: "stray backslash swallows the entrypoint", dockerfile: []edit{{"|| exit 1", "|| exit 1 \\"}}, want: "no ENTRYPOINT"},

		// Compose file.
		{name: "obsolete version key", compose: []edit{{"services:\n", "version: \"3.8\"\nservices:\n"}}, want: "obsolete"},
		{name: "emulator service renamed", compose: []edit{{"  cosmos-emulator:\n    build", "  emulator:\n    build"}}, want: `no "cosmos-emulator" service`},
		{name: "no build", compose: []edit{{"    build:\n      context: .\n      dockerfile: Dockerfile\n", ""}}, want: "no build section"},
		{name: "missing dockerfile", compose: []edit{{"dockerfile: Dockerfile", "dockerfile: Containerfile"}}, want: "build dockerfile"},
		{name: "other build context", compose: []edit{{"context: .", "context: ./cmd"}}, want: "repository root"},
		{name: "no image name", compose: []edit{{"    image: cosmos-emulator:local\n", ""}}, want: "no image name"},
		{name: "port not published", compose: []edit{{`- "127.0.0.1:8081:8081"`, `- "127.0.0.1:9000:8081"`}}, want: "publish host port 8081"},
		{name: "port on every interface", compose: []edit{{`- "127.0.0.1:8081:8081"`, `- "8081:8081"`}}, want: "loopback only"},
		{name: "explorer port on every interface", compose: []edit{{`- "127.0.0.1:1234:1234"`, `- "0.0.0.0:1234:1234"`}}, want: "loopback only"},
		{name: "explorer port not published", compose: []edit{{`      - "127.0.0.1:1234:1234"`, `      # - "127.0.0.1:1234:1234"`}}, want: "explorer's port"},
		{name: "addr overridden to loopback", compose: []edit{{`command: ["--tls-host"`, `command: ["--addr=127.0.0.1:8081", "--tls-host"`}}, want: "listens on host"},
		{name: "entrypoint overridden", compose: []edit{{"    command:", "    entrypoint: [\"/usr/local/bin/cosmos-emulator\", \"--addr\", \"127.0.0.1:8081\"]\n    command:"}}, want: "listens on host"},
		{name: "health check path", compose: []edit{{`"https://127.0.0.1:8081/_emulator/health"`, `"https://127.0.0.1:8081/"`}}, want: "health check"},
		{name: "health check over http", compose: []edit{{`"https://127.0.0.1:8081/_emulator/health"`, `"http://127.0.0.1:8081/_emulator/health"`}}, want: "serves https"},
		{name: "health check over https while serving http", compose: []edit{{"PROTOCOL: https", "PROTOCOL: http"}}, want: "serves http but"},
		{name: "our variable beats PROTOCOL", compose: []edit{{"      PROTOCOL: https\n", "      PROTOCOL: https\n      COSMOS_EMULATOR_PROTOCOL: http\n"}}, want: "serves http but"},
		{name: "addr with another port", compose: []edit{{`command: ["--tls-host"`, `command: ["--addr=0.0.0.0:9000", "--tls-host"`}}, want: "publish host port 8081"},
		{name: "no data volume", compose: []edit{{"    volumes:\n      - emulator-data:/data\n", ""}}, want: "named volume"},
		{name: "data volume undeclared", compose: []edit{{"volumes:\n  emulator-data:\n", ""}}, want: "named volume"},
		{name: "data in a bind mount", compose: []edit{{"- emulator-data:/data", "- ./data:/data"}}, want: "named volume"},
		{name: "no tls-host", compose: []edit{{`command: ["--tls-host", "cosmos-emulator"]`, `command: []`}}, want: "--tls-host"},
	}
	base := readRepoFiles(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := base
			apply := func(text string, edits []edit) string {
				for _, e := range edits {
					if !strings.Contains(text, e.old) {
						t.Fatalf("edit does not apply: %q not found (update this test to the files)", e.old)
					}
					text = strings.Replace(text, e.old, e.new, 1)
				}
				return text
			}
			f.compose = apply(f.compose, tc.compose)
			f.dockerfile = apply(f.dockerfile, tc.dockerfile)
			got := check(t, f)
			if !slices.ContainsFunc(got, func(p string) bool { return strings.Contains(p, tc.want) }) {
				t.Fatalf("no problem mentioning %q; got %q", tc.want, got)
			}
		})
	}
}

// TestComposeAlternativeSyntax checks that the compose model understands the
// other spellings the compose specification allows, so that rewriting the
// file in another style does not make the checks pass or fail wrongly.
func TestComposeAlternativeSyntax(t *testing.T) {
	const doc = `
services:
  cosmos-emulator:
    build: .
    command: --pg postgres://u:p@postgres/d --tls-host a,cosmos-emulator
    environment:
      - COSMOS_EMULATOR_ADDR=0.0.0.0:8081
      - COSMOS_EMULATOR_TLS_HOST=b
    ports:
      - target: 8081
        published: "8081"
        protocol: tcp
      - "127.0.0.1:9000:9001/udp"
    depends_on: [postgres]
    volumes:
      - /data
      - type: volume
        source: v
        target: /v
    healthcheck:
      test: curl -f http://127.0.0.1:8081/_emulator/health
`
	cf, err := parseCompose([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	svc := cf.Services[emulatorService]
	if svc.Build == nil || svc.Build.Context != "." {
		t.Errorf("build = %+v", svc.Build)
	}
	wantPorts := []portSpec{{Target: "8081", Published: "8081", Protocol: "tcp"}, {HostIP: "127.0.0.1", Published: "9000", Target: "9001", Protocol: "udp"}}
	if !slices.Equal(svc.Ports, wantPorts) {
		t.Errorf("ports = %+v, want %+v", svc.Ports, wantPorts)
	}
	if svc.DependsOn["postgres"] != "service_started" {
		t.Errorf("depends_on = %v", svc.DependsOn)
	}
	wantVolumes := []volumeMount{{Type: "volume", Target: "/data"}, {Type: "volume", Source: "v", Target: "/v"}}
	if !slices.Equal(svc.Volumes, wantVolumes) {
		t.Errorf("volumes = %+v, want %+v", svc.Volumes, wantVolumes)
	}
	if got := svc.Healthcheck.command(); got != "curl -f http://127.0.0.1:8081/_emulator/health" {
		t.Errorf("health check command = %q", got)
	}

	df, err := parseDockerfile("FROM scratch\nENTRYPOINT [\"/cosmos-emulator\"]\nCMD [\"--log-level\", \"debug\"]\n")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := effectiveConfig(svc, df)
	if err != nil {
		t.Fatal(err)
	}
	// compose's command replaces the image's CMD and follows its ENTRYPOINT.
	if want := []string{"/cosmos-emulator", "--pg", "postgres://u:p@postgres/d", "--tls-host", "a,cosmos-emulator"}; !slices.Equal(cfg.Args, want) {
		t.Errorf("args = %q, want %q", cfg.Args, want)
	}
	tests := []struct {
		flag string
		want string
		ok   bool
	}{
		{"addr", "0.0.0.0:8081", true}, // from the environment
		{"pg", "postgres://u:p@postgres/d", true},
		{"log-level", "", false}, // the image's CMD was replaced
	}
	for _, tc := range tests {
		if got, ok := cfg.value(tc.flag); got != tc.want || ok != tc.ok {
			t.Errorf("value(%q) = %q, %v; want %q, %v", tc.flag, got, ok, tc.want, tc.ok)
		}
	}
	if got, want := cfg.list("tls-host"), []string{"a", "cosmos-emulator", "b"}; !slices.Equal(got, want) {
		t.Errorf("tls-host = %q, want %q", got, want)
	}
}

// TestParseDockerfile checks the minimal Dockerfile parser.
func TestParseDockerfile(t *testing.T) {
	const text = `# syntax=docker/dockerfile:1
ARG BASE=alpine
ARG TAG=3
ARG IMAGE=${BASE}:$TAG
FROM --platform=$BUILDPLATFORM ${BASE}:$TAG AS one
RUN echo a \
    # a comment inside a continuation
    && echo b
from ${IMAGE}
ENV A=1 B="two"
`
	df, err := parseDockerfile(text)
	if err != nil {
		t.Fatal(err)
	}
	if len(df.Stages) != 2 {
		t.Fatalf("stages = %d, want 2", len(df.Stages))
	}
	if s := df.Stages[0]; s.Image != "alpine:3" || s.Name != "one" {
		t.Errorf("stage 0 = %q AS %q", s.Image, s.Name)
	}
	if s := df.Stages[1]; s.RawImage != "${IMAGE}" || s.Image != "alpine:3" {
		t.Errorf("stage 1 = %q (%q), want ${IMAGE} (alpine:3): ARGs expand in ARG defaults", s.RawImage, s.Image)
	}
	if runs := df.Stages[0].find("RUN"); len(runs) != 1 || runs[0].Args != "echo a && echo b" || runs[0].Line != 6 {
		t.Errorf("RUN = %+v", runs)
	}
	if env := df.last().env(); env["A"] != "1" || env["B"] != "two" {
		t.Errorf("env = %v", env)
	}
	for _, bad := range []string{"RUN x\nFROM y\n", "FROM x\nRUN a \\\n"} {
		if _, err := parseDockerfile(bad); err == nil {
			t.Errorf("parseDockerfile(%q) succeeded, want error", bad)
		}
	}
}
