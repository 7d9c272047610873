package compat_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// The reliability suite: faults of the emulator process and of its
// PostgreSQL under write load, and races between writers. Each test is
// bounded (seconds, not minutes).

// writeLoad starts writers goroutines that create items with unique ids in
// cc; stop ends them and returns the ids whose creation was acknowledged
// (201). Failed writes are retried with new ids after a short pause; a
// failure other than 503 or a broken connection fails the test. The writers
// are stopped when the test ends in any case.
func writeLoad(t *testing.T, cc *azcosmos.ContainerClient, writers int) (stop func() []string) {
	t.Helper()
	stopc := make(chan struct{})
	var once sync.Once
	var mu sync.Mutex
	var ids []string
	var wg sync.WaitGroup
	pk := azcosmos.NewPartitionKeyString("p")
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stopc:
					return
				default:
				}
				id := fmt.Sprintf("w%d-%d", w, i)
				_, err := cc.CreateItem(bg, pk, []byte(`{"id":"`+id+`","pk":"p","n":`+fmt.Sprint(i)+`}`), nil)
				if err == nil {
					mu.Lock()
					ids = append(ids, id)
					mu.Unlock()
					continue
				}
				var re *azcore.ResponseError
				if errors.As(err, &re) && re.StatusCode != http.StatusServiceUnavailable {
					t.Errorf("write %s: status %d, want 201 or 503: %v", id, re.StatusCode, err)
					return
				}
				time.Sleep(20 * time.Millisecond) // 503 or connection lost: not acknowledged
			}
		}()
	}
	stop = func() []string {
		once.Do(func() { close(stopc) })
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		return ids
	}
	t.Cleanup(func() { stop() })
	return stop
}

// wantAllPresent checks that every acknowledged id is in the container.
func wantAllPresent(t *testing.T, cc *azcosmos.ContainerClient, acked []string) {
	t.Helper()
	present := map[string]bool{}
	pager := cc.NewQueryItemsPager("SELECT VALUE c.id FROM c", azcosmos.NewPartitionKeyString("p"), nil)
	for pager.More() {
		page, err := pager.NextPage(bg)
		if err != nil {
			t.Fatal(err)
		}
		for _, raw := range page.Items {
			present[strings.Trim(string(raw), `"`)] = true
		}
	}
	lost := 0
	for _, id := range acked {
		if !present[id] {
			lost++
		}
	}
	if lost > 0 || len(acked) == 0 {
		t.Fatalf("%d of %d acknowledged writes lost", lost, len(acked))
	}
	t.Logf("%d acknowledged writes, all present", len(acked))
}

// waitWrites waits until the container holds at least n items, bounded by
// a minute.
func waitWrites(t *testing.T, cc *azcosmos.ContainerClient, n int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		page, err := cc.NewQueryItemsPager("SELECT VALUE COUNT(1) FROM c", azcosmos.NewPartitionKeyString("p"), nil).NextPage(bg)
		if err == nil && len(page.Items) == 1 {
			if count, _ := strconv.Atoi(string(page.Items[0])); count >= n {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("fewer than %d writes after a minute", n)
}

// durabilityModes are the levels the kill tests run in: an acknowledged
// write must survive a kill -9 of PostgreSQL or of the emulator in both
// (none, by contract, may lose the last writes).
var durabilityModes = []emulatortest.Durability{emulatortest.DurabilityFull, emulatortest.DurabilityProcess}

// TestKillPostmasterUnderLoad kills the managed PostgreSQL (SIGKILL) while
// writers create items: no acknowledged write is lost, and writes resume
// without anyone restarting anything; in each durability mode that
// promises it.
func TestKillPostmasterUnderLoad(t *testing.T) {
	t.Parallel()
	for _, mode := range durabilityModes {
		t.Run(string(mode), func(t *testing.T) {
			t.Parallel()
			e := emulatortest.StartManaged(t, emulatortest.WithDurability(mode))
			if got := e.Durability(); got != mode {
				t.Fatalf("durability %q, want %q", got, mode)
			}
			c := e.Client(t)
			cc := mustContainer(t, mustDB(t, c, "db"), "c")
			stop := writeLoad(t, cc, 4)
			waitWrites(t, cc, 100)
			e.KillPostgres(t)
			// Writes resume by themselves: more items than before the kill.
			before := len(snapshotIDs(t, cc))
			waitWrites(t, cc, before+100)
			wantAllPresent(t, cc, stop())
		})
	}
}

func snapshotIDs(t *testing.T, cc *azcosmos.ContainerClient) []string {
	t.Helper()
	var ids []string
	deadline := time.Now().Add(time.Minute)
	pager := cc.NewQueryItemsPager("SELECT VALUE c.id FROM c", azcosmos.NewPartitionKeyString("p"), nil)
	for pager.More() {
		page, err := pager.NextPage(bg)
		if err != nil {
			if time.Now().After(deadline) {
				t.Fatal(err)
			}
			time.Sleep(100 * time.Millisecond) // PostgreSQL is restarting
			pager = cc.NewQueryItemsPager("SELECT VALUE c.id FROM c", azcosmos.NewPartitionKeyString("p"), nil)
			ids = nil
			continue
		}
		for _, raw := range page.Items {
			ids = append(ids, string(raw))
		}
	}
	return ids
}

// emulatorProcess is the real command running as a child process.
type emulatorProcess struct {
	cmd      *exec.Cmd
	endpoint string
	// durability is its "Durability: ..." start-up line.
	durability string
}

// buildEmulator builds the command into a temporary directory of t.
func buildEmulator(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "cosmos-emulator")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/cosmos-emulator/cosmos-emulator/cmd/cosmos-emulator").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// startProcess runs the emulator bin on dataDir, with extra arguments, and
// waits for its ready line.
func startProcess(t *testing.T, bin, dataDir string, args ...string) *emulatorProcess {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"--addr", "127.0.0.1:0", "--data-dir", dataDir, "--log-level", "warn"}, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &emulatorProcess{cmd: cmd}
	t.Cleanup(func() {
		// A clean stop, so that the managed PostgreSQL has stopped (and
		// written its last files) before the test's data directory is
		// removed: after a SIGKILL its postmaster could still be exiting
		// ("pg_wal: directory not empty"). A process the test killed is
		// already gone.
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { p.cmd.Wait(); close(done) }() //nolint:errcheck
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = p.cmd.Process.Kill()
			<-done
		}
	})
	br := bufio.NewReader(stdout)
	line, err := br.ReadString('\n')
	if err != nil {
		cmd.Wait() //nolint:errcheck
		if strings.Contains(stderr.String(), "PostgreSQL is not installed") && os.Getenv("CI") == "" {
			t.Skip(stderr.String())
		}
		t.Fatalf("emulator did not start: %v\n%s", err, stderr.String())
	}
	var ok bool
	if p.endpoint, ok = strings.CutPrefix(strings.TrimSpace(line), "cosmos-emulator ready: "); !ok {
		t.Fatalf("ready line %q", line)
	}
	for !strings.HasPrefix(p.durability, "Durability: ") {
		if p.durability, err = br.ReadString('\n'); err != nil {
			t.Fatalf("no Durability line: %v", err)
		}
	}
	p.durability = strings.TrimSpace(p.durability)
	go io.Copy(io.Discard, br) //nolint:errcheck
	return p
}

func (p *emulatorProcess) client(t *testing.T) *azcosmos.Client {
	t.Helper()
	cred, err := azcosmos.NewKeyCredential(emulatortest.Key)
	if err != nil {
		t.Fatal(err)
	}
	c, err := azcosmos.NewClientWithKey(p.endpoint, cred, &azcosmos.ClientOptions{ClientOptions: azcore.ClientOptions{
		Transport: emulatortest.HTTPClient(), Retry: policy.RetryOptions{MaxRetries: -1}}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestKillEmulatorUnderLoad kills the emulator process itself (SIGKILL)
// while writers create items, then starts it again on the same data
// directory: every acknowledged write is there, in each durability mode
// that promises it.
func TestKillEmulatorUnderLoad(t *testing.T) {
	t.Parallel()
	bin := buildEmulator(t)
	for _, mode := range durabilityModes {
		t.Run(string(mode), func(t *testing.T) {
			t.Parallel()
			dataDir := t.TempDir()
			p := startProcess(t, bin, dataDir, "--durability", string(mode))
			if want := "Durability: " + string(mode) + " ("; !strings.HasPrefix(p.durability, want) {
				t.Fatalf("durability line %q, want it to start with %q", p.durability, want)
			}
			cc := mustContainer(t, mustDB(t, p.client(t), "db"), "c")
			stop := writeLoad(t, cc, 4)
			waitWrites(t, cc, 200)
			if err := p.cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			p.cmd.Wait() //nolint:errcheck
			ids := stop()

			p2 := startProcess(t, bin, dataDir, "--durability", string(mode))
			db, _ := p2.client(t).NewDatabase("db")
			cc2, _ := db.NewContainer("c")
			wantAllPresent(t, cc2, ids)
		})
	}
}

// TestIfMatchRace: writers replace the same item at once, each with the
// etag they read; exactly one wins, the others get 412, in every round.
func TestIfMatchRace(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := mustContainer(t, mustDB(t, f.c, "db"), "c")
	pk := azcosmos.NewPartitionKeyString("p")
	if _, err := cc.CreateItem(bg, pk, []byte(`{"id":"x","pk":"p","v":0}`), nil); err != nil {
		t.Fatal(err)
	}
	const writers, rounds = 8, 20
	for round := range rounds {
		r, err := cc.ReadItem(bg, pk, "x", nil)
		if err != nil {
			t.Fatal(err)
		}
		etag := r.ETag
		statuses := make(chan int, writers)
		var wg sync.WaitGroup
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				body := fmt.Sprintf(`{"id":"x","pk":"p","v":%d,"w":%d}`, round+1, w)
				_, err := cc.ReplaceItem(bg, pk, "x", []byte(body), &azcosmos.ItemOptions{IfMatchEtag: &etag})
				var re *azcore.ResponseError
				switch {
				case err == nil:
					statuses <- http.StatusOK
				case errors.As(err, &re):
					statuses <- re.StatusCode
				default:
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		close(statuses)
		count := map[int]int{}
		for s := range statuses {
			count[s]++
		}
		if count[http.StatusOK] != 1 || count[http.StatusPreconditionFailed] != writers-1 {
			t.Fatalf("round %d: statuses %v, want one 200 and %d 412", round, count, writers-1)
		}
	}
}
