package cosmoscontainer_test

// Tests of what the repository's Dockerfile and docker-compose.yml do, on a
// running container and a running compose stack (not of the files' text):
// the image runs the emulator as an unprivileged user with its PostgreSQL
// data in the /data volume, passes its own health check, hands its
// arguments to the emulator and is labelled with the version the binary
// reports; the compose stack is healthy, publishes its ports on loopback
// only, keeps its data in a named volume and serves https with a
// certificate for its service name. scripts/ci/docker.sh runs them with an
// engine (make docker-test), the stack up and the image built from those
// files.

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"
	tcexec "github.com/testcontainers/testcontainers-go/exec"
	"github.com/testcontainers/testcontainers-go/wait"
)

// healthWait bounds the wait for Docker's health status to turn healthy:
// the image's HEALTHCHECK start period (60 s) and then some.
const healthWait = 3 * time.Minute

// execOutput runs cmd in the container and returns its exit code and output.
func execOutput(t *testing.T, c *testcontainers.DockerContainer, cmd ...string) (int, string) {
	t.Helper()
	code, r, err := c.Exec(context.Background(), cmd, tcexec.Multiplexed())
	if err != nil {
		t.Fatalf("exec %q: %v", cmd, err)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("exec %q: reading the output: %v", cmd, err)
	}
	return code, strings.TrimSpace(string(out))
}

// TestImageBehaviour starts the image as the module does (http, nothing
// mounted) and checks what its Dockerfile promises.
func TestImageBehaviour(t *testing.T) {
	c := run(t)
	d := c.Docker()
	ctx := context.Background()

	t.Run("runs the emulator as an unprivileged user", func(t *testing.T) {
		code, uid := execOutput(t, d, "id", "-u")
		if code != 0 || uid == "" || uid == "0" {
			t.Errorf("id -u in the container: exit %d, %q; want a non-root uid", code, uid)
		}
		// the emulator's process (pid 1 is tini) runs as that user too
		code, owners := execOutput(t, d, "sh", "-c", "stat -c %u /proc/[0-9]*/exe 2>/dev/null | sort -u")
		if code != 0 || strings.Contains("\n"+owners+"\n", "\n0\n") {
			t.Errorf("owners of the container's processes: exit %d, %q; want none of them root", code, owners)
		}
	})

	t.Run("keeps the PostgreSQL cluster in the /data volume", func(t *testing.T) {
		info, err := d.Inspect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var volume bool
		for _, m := range info.Mounts {
			volume = volume || (m.Destination == "/data" && m.Type == "volume")
		}
		if !volume {
			t.Errorf("mounts %+v: want a volume at /data (the image's VOLUME)", info.Mounts)
		}
		if code, out := execOutput(t, d, "test", "-s", "/data/postgres/pgdata/PG_VERSION"); code != 0 {
			t.Errorf("/data/postgres/pgdata/PG_VERSION: exit %d %s; want the managed cluster in /data", code, out)
		}
	})

	t.Run("passes its own health check", func(t *testing.T) {
		deadline := time.Now().Add(healthWait)
		status := ""
		for time.Now().Before(deadline) {
			info, err := d.Inspect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if info.State == nil || info.State.Health == nil {
				t.Fatal("the container has no health status: the image defines no HEALTHCHECK")
			}
			if status = string(info.State.Health.Status); status == "healthy" || status == "unhealthy" {
				break
			}
			time.Sleep(time.Second)
		}
		if status != "healthy" {
			t.Fatalf("health status %q, want healthy", status)
		}
	})

	t.Run("hands its arguments to the emulator and reports its labelled version", func(t *testing.T) {
		info, err := d.Inspect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		label := info.Config.Labels["org.opencontainers.image.version"]
		if label == "" {
			t.Fatalf("no org.opencontainers.image.version label: %v", info.Config.Labels)
		}
		v, err := testcontainers.Run(ctx, d.Image, testcontainers.WithCmd("--version"),
			testcontainers.WithWaitStrategy(wait.ForExit().WithExitTimeout(time.Minute)))
		testcontainers.CleanupContainer(t, v)
		if err != nil {
			t.Fatal(err)
		}
		logs, err := v.Logs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := io.ReadAll(logs)
		if want := "cosmos-emulator " + label + " "; !strings.Contains(string(out), want) {
			t.Errorf("docker run IMAGE --version printed %q, want %q (the label's version)", out, want)
		}
	})
}

// composeContainer is the container of the compose stack's emulator
// service, named by COSMOS_COMPOSE_CONTAINER (scripts/ci/docker.sh sets it
// while its stack runs).
func composeContainer(t *testing.T) string {
	t.Helper()
	id := os.Getenv("COSMOS_COMPOSE_CONTAINER")
	if id == "" {
		t.Skip("COSMOS_COMPOSE_CONTAINER is not set: no compose stack to test (scripts/ci/docker.sh runs one)")
	}
	return id
}

// dockerInspect returns docker inspect's view of container id.
func dockerInspect(t *testing.T, id string) composeInspect {
	t.Helper()
	out, err := exec.Command("docker", "inspect", id).Output()
	if err != nil {
		t.Fatalf("docker inspect %s: %v", id, err)
	}
	var infos []composeInspect
	if err := json.Unmarshal(out, &infos); err != nil || len(infos) != 1 {
		t.Fatalf("docker inspect %s: %v (%d containers)", id, err, len(infos))
	}
	return infos[0]
}

// composeInspect is the part of docker inspect the compose tests read.
type composeInspect struct {
	State struct {
		Health *struct{ Status string }
	}
	Mounts []struct {
		Type, Name, Destination string
	}
	NetworkSettings struct {
		Ports map[string][]struct{ HostIp, HostPort string }
	}
}

// TestComposeStack checks the running stack of the repository's
// docker-compose.yml.
func TestComposeStack(t *testing.T) {
	id := composeContainer(t)
	info := dockerInspect(t, id)
	// hostAddr is where the stack publishes a container port on this machine.
	hostAddr := func(port string) string {
		bs := info.NetworkSettings.Ports[port]
		if len(bs) == 0 {
			t.Fatalf("%s is not published", port)
		}
		return "127.0.0.1:" + bs[0].HostPort
	}

	t.Run("healthy through its own health check", func(t *testing.T) {
		if info.State.Health == nil || info.State.Health.Status != "healthy" {
			t.Errorf("health %+v, want healthy (the compose health check speaks the protocol served)", info.State.Health)
		}
	})

	t.Run("publishes its ports on loopback only", func(t *testing.T) {
		for _, port := range []string{"8081/tcp", "1234/tcp", "10251/tcp"} {
			bs := info.NetworkSettings.Ports[port]
			if len(bs) == 0 {
				t.Errorf("%s is not published", port)
			}
			for _, b := range bs {
				if b.HostIp != "127.0.0.1" && b.HostIp != "::1" {
					t.Errorf("%s is published on %q:%s; want loopback only (the key is public)", port, b.HostIp, b.HostPort)
				}
				if want := strings.TrimSuffix(port, "/tcp"); b.HostPort != want {
					t.Errorf("%s is published on host port %s, want %s", port, b.HostPort, want)
				}
			}
		}
	})

	t.Run("keeps its data in a named volume", func(t *testing.T) {
		var named bool
		for _, m := range info.Mounts {
			named = named || (m.Destination == "/data" && m.Type == "volume" && strings.HasSuffix(m.Name, "emulator-data"))
		}
		if !named {
			t.Errorf("mounts %+v: want the emulator-data volume at /data", info.Mounts)
		}
	})

	t.Run("serves https with a certificate for its service name", func(t *testing.T) {
		pem, err := exec.Command("docker", "exec", id, "cat", "/data/emulator.pem").Output()
		if err != nil {
			t.Fatalf("reading /data/emulator.pem: %v", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			t.Fatal("/data/emulator.pem holds no certificate")
		}
		for _, name := range []string{"cosmos-emulator", "localhost"} {
			hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
				TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: name}}}
			resp, err := hc.Get("https://" + hostAddr("8081/tcp") + "/_emulator/health")
			if err != nil {
				t.Errorf("https as %s: %v", name, err)
				continue
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("https as %s: health %d, want 200", name, resp.StatusCode)
			}
		}
	})

	t.Run("serves the data explorer over plain http", func(t *testing.T) {
		hc := &http.Client{Timeout: 30 * time.Second}
		resp, err := hc.Get("http://" + hostAddr("1234/tcp") + "/")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Content-Type"), "text/html") {
			t.Errorf("GET the explorer's port: %d %s, want the explorer's page (%.80q)", resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	})
}

// TestDockerfileBuildsWithGoModsGo: the image's build stage runs the Go
// release go.mod's go directive names (GOTOOLCHAIN=local, so an older one
// refuses to build the module and a newer one is not what CI tests).
func TestDockerfileBuildsWithGoModsGo(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile(repoRoot + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	goMod := regexp.MustCompile(`(?m)^go (\S+)\s*$`).FindStringSubmatch(read("go.mod"))
	arg := regexp.MustCompile(`(?m)^ARG GO_VERSION=(\S+)\s*$`).FindStringSubmatch(read("Dockerfile"))
	if goMod == nil || arg == nil {
		t.Fatalf("go.mod's go directive %q, the Dockerfile's ARG GO_VERSION %q: want both", goMod, arg)
	}
	if goMod[1] != arg[1] {
		t.Errorf("Dockerfile ARG GO_VERSION=%s, go.mod go %s: want the same release", arg[1], goMod[1])
	}
}
