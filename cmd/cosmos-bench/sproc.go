package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// The sproc scenario (-scenario sproc) times stored procedure executions
// (signed REST), one client, one partition: a trivial procedure and one
// creating 100 documents in its transaction, each checked for its answer.

// sprocConfig configures the sproc scenario.
type sprocConfig struct {
	runs int // measured executions of each procedure
}

// sprocResult is what the sproc scenario measured.
type sprocResult struct {
	Trivial    latencyStats `json:"trivial"`
	Create100  latencyStats `json:"create_100_documents"`
	DocsPerSec float64      `json:"documents_per_sec"`
}

// Procedures of the sproc scenario.
const (
	sprocTrivial   = `function () { getContext().getResponse().setBody("ok"); }`
	sprocCreate100 = `function (prefix) {
	var c = getContext().getCollection(), n = 0;
	function next() {
		if (n === 100) { getContext().getResponse().setBody(n); return; }
		if (!c.createDocument(c.getSelfLink(), {id: prefix + "-" + n, pk: "p", n: n}, function (err) { if (err) throw err; n++; next(); }))
			throw new Error("not accepted after " + n);
	}
	next();
}`
)

// runSproc runs the sproc scenario on a fresh emulator.
func (b *bench) runSproc(ctx context.Context, r *results) (err error) {
	res := &sprocResult{}
	r.Sproc = res
	cfg := b.cfg
	run, err := b.startSDKRun(ctx, "sproc")
	if err != nil {
		return err
	}
	defer run.close()
	cc, db := run.ctl, run.dbID
	coll := "/dbs/" + db + "/colls/c"
	if _, _, err := cc.doExpect(ctx, http.StatusCreated, http.MethodPost, "/dbs/"+db+"/colls", nil, []byte(`{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2}}`)); err != nil {
		return err
	}
	for id, body := range map[string]string{"trivial": sprocTrivial, "create100": sprocCreate100} {
		def, _ := json.Marshal(map[string]string{"id": id, "body": body})
		if _, _, err := cc.doExpect(ctx, http.StatusCreated, http.MethodPost, coll+"/sprocs", nil, def); err != nil {
			return err
		}
	}
	headers := map[string]string{"x-ms-documentdb-partitionkey": `["p"]`}
	exec := func(id, params, want string) error {
		_, out, err := cc.do(ctx, http.MethodPost, coll+"/sprocs/"+id, headers, []byte(params))
		if err == nil && string(out) != want {
			err = fmt.Errorf("%s returned %s, want %s", id, out, want)
		}
		return err
	}
	trivial := func(int) error { return exec("trivial", `[]`, `"ok"`) }
	create := func(prefix string) func(i int) error {
		return func(i int) error { return exec("create100", fmt.Sprintf(`["%s%d"]`, prefix, i), `100`) }
	}
	b.logf("sproc: %d executions of a trivial procedure and of one creating 100 documents (after %d of each unmeasured)", cfg.sproc.runs, min(cfg.warmup, 20))
	if res.Trivial, err = measure(min(cfg.warmup, 20), cfg.sproc.runs, trivial); err != nil {
		return fmt.Errorf("trivial: %w", err)
	}
	if res.Create100, err = measure(min(cfg.warmup, 20), cfg.sproc.runs, create("m")); err != nil {
		return fmt.Errorf("create100: %w", err)
	}
	if res.Create100.Seconds > 0 {
		res.DocsPerSec = 100 * float64(res.Create100.Ops) / res.Create100.Seconds
	}
	if res.Trivial.Ops == 0 {
		return errors.New("sproc: nothing measured")
	}
	return nil
}

// writeSprocReport writes the sproc scenario's results.
func writeSprocReport(w io.Writer, r *sprocResult) {
	fmt.Fprintf(w, "\nStored procedures (one client, one partition, signed REST; ms): trivial p50 %.3f (%.0f executions/s); creating 100 documents p50 %.3f (%.1f executions/s, %.0f documents/s)\n",
		r.Trivial.P50, r.Trivial.OpsPerSec, r.Create100.P50, r.Create100.OpsPerSec, r.DocsPerSec)
}
