package compat_test

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// quotaFields splits an x-ms-resource-quota / -usage header
// ("name=value;...;") into its numbers.
func quotaFields(t *testing.T, h string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, f := range strings.Split(strings.TrimSuffix(h, ";"), ";") {
		name, v, ok := strings.Cut(f, "=")
		n, err := strconv.ParseInt(v, 10, 64)
		if !ok || err != nil {
			t.Fatalf("header %q: field %q", h, f)
		}
		out[name] = n
	}
	return out
}

// TestContainerQuotaInfo: a container read through azcosmos with
// ReadContainerOptions.PopulateQuotaInfo (x-ms-documentdb-populatequotainfo:
// true) carries the service's x-ms-resource-quota, x-ms-resource-usage -
// the container's own live items (expired ones left out) and storage, in
// the quota's units - and x-ms-documentdb-collection-index-transformation-progress
// 100 (no reindex is ever pending: policy changes are built before the
// replace answers); without the option neither usage nor progress.
func TestContainerQuotaInfo(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	e := emulatortest.Start(t, emulatortest.WithFrozenClock(t0), emulatortest.WithoutBackgroundSweeper())
	c := e.Client(t)
	db := mustDB(t, c, "quota")
	for _, id := range []string{"c", "other"} {
		ttl := int32(-1)
		if _, err := db.CreateContainer(bg, azcosmos.ContainerProperties{ID: id, DefaultTimeToLive: &ttl,
			PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	cc, err := db.NewContainer("c")
	if err != nil {
		t.Fatal(err)
	}
	pk := azcosmos.NewPartitionKeyString("p")
	read := func(t *testing.T, id string, quota bool) http.Header {
		t.Helper()
		cl, err := db.NewContainer(id)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		resp, err := cl.Read(bg, &azcosmos.ReadContainerOptions{PopulateQuotaInfo: quota})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("read %s (quota info %v) in %v", id, quota, time.Since(start))
		return resp.RawResponse.Header
	}
	for _, tc := range []struct {
		name      string
		setup     func(t *testing.T)
		container string
		count     int64
	}{
		{"empty", func(*testing.T) {}, "c", 0},
		{"five items", func(t *testing.T) {
			for i := range 5 {
				// hex of a hash chain: storage does not compress it away
				var pad strings.Builder
				sum := sha256.Sum256([]byte{byte(i)})
				for pad.Len() < 3000 {
					sum = sha256.Sum256(sum[:])
					pad.WriteString(hex.EncodeToString(sum[:]))
				}
				body := `{"id":"i` + strconv.Itoa(i) + `","pk":"p","pad":"` + pad.String() + `"}`
				if _, err := cc.CreateItem(bg, pk, []byte(body), nil); err != nil {
					t.Fatal(err)
				}
			}
		}, "c", 5},
		{"another container's items are not counted", func(*testing.T) {}, "other", 0},
		{"an expired item is not counted", func(t *testing.T) {
			if _, err := cc.CreateItem(bg, pk, []byte(`{"id":"t","pk":"p","ttl":10}`), nil); err != nil {
				t.Fatal(err)
			}
			if err := e.Clock().Advance(11 * time.Second); err != nil {
				t.Fatal(err)
			}
		}, "c", 5},
		{"after deletes", func(t *testing.T) {
			for _, id := range []string{"i0", "i1"} {
				if _, err := cc.DeleteItem(bg, pk, id, nil); err != nil {
					t.Fatal(err)
				}
			}
		}, "c", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.setup(t)
			h := read(t, tc.container, true)
			quota := quotaFields(t, h.Get("x-ms-resource-quota"))
			usage := quotaFields(t, h.Get("x-ms-resource-usage"))
			t.Logf("quota %v usage %v", quota, usage)
			if quota["documentsSize"] != 10485760 || quota["collectionSize"] != 10485760 || quota["documentsCount"] != -1 {
				t.Errorf("x-ms-resource-quota %q", h.Get("x-ms-resource-quota"))
			}
			if usage["documentsCount"] != tc.count {
				t.Errorf("documentsCount %d, want %d", usage["documentsCount"], tc.count)
			}
			if usage["documentSize"] != usage["documentsSize"]/1024 || usage["collectionSize"] < usage["documentsSize"] ||
				(tc.count > 0 && usage["documentsSize"] < tc.count*3) {
				t.Errorf("usage sizes %q for %d items of 3 KB", h.Get("x-ms-resource-usage"), tc.count)
			}
			if got := h.Get("x-ms-documentdb-collection-index-transformation-progress"); got != "100" {
				t.Errorf("index transformation progress %q, want 100", got)
			}
		})
	}
	t.Run("without quota info", func(t *testing.T) {
		h := read(t, "c", false)
		for _, name := range []string{"x-ms-resource-usage", "x-ms-documentdb-collection-index-transformation-progress"} {
			if v := h.Get(name); v != "" {
				t.Errorf("%s: %q without x-ms-documentdb-populatequotainfo", name, v)
			}
		}
	})
}
