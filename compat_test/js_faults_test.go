package compat_test

import (
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// TestJSFaults runs compat_test/js/faults.mjs behind a wire recorder:
// @azure/cosmos retries two injected 429s and the read succeeds (its
// x-ms-throttle-retry-count is 2), a client with a budget of 3 retries
// sees the 429/3200 itself after 4 attempts, and a 410/1002 injected on
// the change feed's range makes it re-read /pkranges and read the change
// on the retry. A 503 on a read is retried once (one injected 503 is
// absorbed, a second reaches the caller); a 503 on a create reaches the
// caller at once and writes nothing. A delay past the client's
// requestTimeout makes reads time out and retry until they succeed, while a
// timed-out create reaches the caller as TimeoutError and is never run (the
// client left during the delay). A rule with probability 0.5 and seed 7
// throttles the same reads each time it is set: the pattern is fixed by the
// seed (math/rand/v2's PCG), so it is asserted exactly.
func TestJSFaults(t *testing.T) {
	node, dir := jsSDK(t)
	e := emulatortest.Start(t, emulatortest.WithProtocol("http"))
	rec, endpoint := startWireRecorder(t, e.Endpoint)
	start := time.Now()
	out, stderr := runJS(t, node, dir, "faults.mjs", 90*time.Second, "COSMOS_ENDPOINT="+endpoint, "COSMOS_DB=faults")
	t.Logf("faults.mjs ran in %v", time.Since(start).Round(time.Millisecond))
	want := `retried status=200 retries=2 hits=2
surfaced code=429 substatus=3200 hits=4
gone ids=a hits=1
503 read-once status=200 hits=1
503 read-many code=503 hits=2
503 create code=503 hits=1 stored=false
timeout read status=200 hits=2 slow=true
timeout create code=TimeoutError hits=1 stored=false
seeded pattern=T.T..T.T.TTT.T.T same=true hits=9 throttled=9
`
	if got := string(out); got != want {
		t.Fatalf("JS SDK with injected faults:\n%s\nwant:\n%s\nstderr:\n%s", got, want, strings.TrimSpace(stderr))
	}
	// the 410/1002 is followed by a read of the ranges, then the retry
	var gone []string
	for _, x := range byMark(rec.all())["gone"] {
		if x.kind == "changefeed" || strings.HasSuffix(x.path, "/pkranges") {
			gone = append(gone, x.String())
		}
	}
	t.Logf("gone scenario on the wire:\n%s", strings.Join(gone, "\n"))
	seq := strings.Join(gone, "\n")
	i410 := strings.Index(seq, "-> 410/1002")
	iRanges := strings.Index(seq[max(i410, 0):], "/pkranges")
	if i410 < 0 || iRanges < 0 || !strings.Contains(seq[i410+iRanges:], "changefeed") {
		t.Fatalf("after the injected 410/1002 the SDK did not re-read /pkranges and retry the change feed:\n%s", seq)
	}
}
