package compat_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// throttleLog is an HTTP transport that counts what the SDK received: the
// 429s with their x-ms-retry-after-ms and sub-status, and the first 429's
// body.
type throttleLog struct {
	next *http.Client

	mu         sync.Mutex
	sent       int
	throttled  int
	retryAfter []int
	subs       map[string]int
	body       []byte
}

// Do implements policy.Transporter.
func (l *throttleLog) Do(r *http.Request) (*http.Response, error) {
	resp, err := l.next.Do(r)
	if err != nil {
		return resp, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sent++
	if resp.StatusCode == http.StatusTooManyRequests {
		l.throttled++
		ms, _ := strconv.Atoi(resp.Header.Get("X-Ms-Retry-After-Ms"))
		l.retryAfter = append(l.retryAfter, ms)
		l.subs[resp.Header.Get("X-Ms-Substatus")]++
		if l.body == nil {
			l.body, _ = io.ReadAll(resp.Body)
			resp.Body = io.NopCloser(bytes.NewReader(l.body))
		}
	}
	return resp, nil
}

// throttlingClient returns an azcosmos client with the SDK's default retry
// policy (what production runs) whose responses l counts.
func throttlingClient(t *testing.T, e *emulatortest.Emulator, l *throttleLog) *azcosmos.Client {
	t.Helper()
	cred, err := azcosmos.NewKeyCredential(emulatortest.Key)
	if err != nil {
		t.Fatal(err)
	}
	c, err := azcosmos.NewClientWithKey(e.Endpoint, cred, &azcosmos.ClientOptions{
		ClientOptions: azcore.ClientOptions{Transport: l},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestRateLimitGoSDK: with --rate-limit, concurrent creates beyond a 400
// RU/s container's budget are answered 429/3200 with x-ms-retry-after-ms
// within (0, 1000] ms and the service's body; azcosmos retries them, and
// every write lands exactly once. A second container written at the same
// time, far below its own budget, is never throttled; after an offer
// replace to 10,000 RU/s the same load is not throttled either.
func TestRateLimitGoSDK(t *testing.T) {
	e := emulatortest.Start(t, emulatortest.WithRateLimit())
	ctx := context.Background()
	cases := []struct {
		name      string
		ru        int32 // provisioned RU/s of the loaded container
		replaceTo int32 // if set, the offer is replaced to this before the load
		writers   int
		writes    int
		throttled bool
	}{
		{name: "400 RU/s under load", ru: 400, writers: 32, writes: 240, throttled: true},
		{name: "raised to 10000 RU/s", ru: 400, replaceTo: 10000, writers: 32, writes: 240, throttled: false},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			loaded := &throttleLog{next: emulatortest.HTTPClient(), subs: map[string]int{}}
			quiet := &throttleLog{next: emulatortest.HTTPClient(), subs: map[string]int{}}
			admin := e.Client(t)
			dbID := fmt.Sprintf("rl%d", i)
			if _, err := admin.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: dbID}, nil); err != nil {
				t.Fatal(err)
			}
			db, _ := admin.NewDatabase(dbID)
			for _, id := range []string{"loaded", "quiet"} {
				tp := azcosmos.NewManualThroughputProperties(tc.ru)
				if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: id,
					PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}},
					&azcosmos.CreateContainerOptions{ThroughputProperties: &tp}); err != nil {
					t.Fatal(err)
				}
			}
			// one write first, so that the emulator knows the budget
			// before any replace
			cc, _ := db.NewContainer("loaded")
			if _, err := cc.CreateItem(ctx, azcosmos.NewPartitionKeyString("p0"), []byte(`{"id":"warm","pk":"p0"}`), nil); err != nil {
				t.Fatal(err)
			}
			if tc.replaceTo > 0 {
				if _, err := cc.ReplaceThroughput(ctx, azcosmos.NewManualThroughputProperties(tc.replaceTo), nil); err != nil {
					t.Fatal(err)
				}
			}
			lc, _ := throttlingClient(t, e, loaded).NewContainer(dbID, "loaded")
			qc, _ := throttlingClient(t, e, quiet).NewContainer(dbID, "quiet")

			start := time.Now()
			var wg sync.WaitGroup
			errs := make(chan error, tc.writes+20)
			next := make(chan int, tc.writes)
			for n := range tc.writes {
				next <- n
			}
			close(next)
			for range tc.writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for n := range next {
						id := fmt.Sprintf("w%04d", n)
						pk := fmt.Sprintf("p%d", n%7)
						body := []byte(fmt.Sprintf(`{"id":%q,"pk":%q,"n":%d}`, id, pk, n))
						if _, err := lc.CreateItem(ctx, azcosmos.NewPartitionKeyString(pk), body, nil); err != nil {
							errs <- fmt.Errorf("create %s: %w", id, err)
						}
					}
				}()
			}
			// The quiet container, written meanwhile: 20 writes, about
			// 120 RU, a third of its own budget.
			for n := range 20 {
				body := []byte(fmt.Sprintf(`{"id":"q%d","pk":"q"}`, n))
				if _, err := qc.CreateItem(ctx, azcosmos.NewPartitionKeyString("q"), body, nil); err != nil {
					errs <- fmt.Errorf("quiet create %d: %w", n, err)
				}
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			elapsed := time.Since(start)

			// every write landed exactly once
			count := 0
			for p := range 7 {
				pager := lc.NewQueryItemsPager("SELECT VALUE COUNT(1) FROM c", azcosmos.NewPartitionKeyString(fmt.Sprintf("p%d", p)), nil)
				for pager.More() {
					page, err := pager.NextPage(ctx)
					if err != nil {
						t.Fatal(err)
					}
					for _, it := range page.Items {
						n, err := strconv.Atoi(string(it))
						if err != nil {
							t.Fatalf("count %s: %v", it, err)
						}
						count += n
					}
				}
			}
			if count != tc.writes+1 {
				t.Errorf("the loaded container holds %d items, want %d", count, tc.writes+1)
			}

			sort.Ints(loaded.retryAfter)
			t.Logf("%d writes by %d writers in %v: %d requests sent, %d answered 429 (sub-status %v), retry-after ms %v",
				tc.writes, tc.writers, elapsed, loaded.sent, loaded.throttled, loaded.subs, summarize(loaded.retryAfter))
			if quiet.throttled != 0 {
				t.Errorf("the quiet container was throttled %d times by the other's load", quiet.throttled)
			}
			if !tc.throttled {
				if loaded.throttled != 0 {
					t.Errorf("%d writes answered 429 within the budget", loaded.throttled)
				}
				return
			}
			if loaded.throttled == 0 {
				t.Fatalf("no write was throttled: %d writes of ~6 RU in %v over a %d RU/s budget", tc.writes, elapsed, tc.ru)
			}
			if loaded.subs["3200"] != loaded.throttled {
				t.Errorf("429 sub-statuses %v, want 3200 on every one", loaded.subs)
			}
			for _, ms := range loaded.retryAfter {
				if ms <= 0 || ms > 1000 {
					t.Errorf("x-ms-retry-after-ms %d, want within (0, 1000]", ms)
					break
				}
			}
			code, msg := errorBody(t, loaded.body)
			// the service's envelope, the same as an injected 429's
			// (TestFaultsAnswers): the SDKs' logs show it this way
			if want := `Message: {"Errors":["Request rate is large. More Request Units may be needed, so no changes were made. Please retry this request later. Learn more: http://aka.ms/cosmosdb-error-429"]}` + "\r\nActivityId: "; code != "TooManyRequests" || !strings.HasPrefix(msg, want) || len(msg) == len(want) {
				t.Errorf("429 body %s, want code TooManyRequests and a message starting %q with the activity id", loaded.body, want)
			}
		})
	}
}

// summarize returns the minimum, median and maximum of sorted values.
func summarize(v []int) string {
	if len(v) == 0 {
		return "none"
	}
	return fmt.Sprintf("min %d median %d max %d", v[0], v[len(v)/2], v[len(v)-1])
}
