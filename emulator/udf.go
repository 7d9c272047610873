package emulator

import (
	"context"
	"errors"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/cosmosql"
	"github.com/cosmos-emulator/cosmos-emulator/emulator/jsengine"
)

// udfCaller implements UDFCaller for one query page: the container's UDFs
// the query names, called in one JavaScript runtime (jsengine.UDFRunner),
// created at the first call, so that each function compiles once per page
// (and once per version across queries, in the engine's cache) and all the
// calls of the page share the engine's time limit.
type udfCaller struct {
	ctx    context.Context
	eng    *jsengine.Engine
	fns    map[string]udfFunc
	runner *jsengine.UDFRunner
}

type udfFunc struct {
	key  jsengine.CacheKey
	body string
}

// queryUDFs resolves the user-defined functions q calls in container c:
// nil when it calls none; an unknown one is the service's 400 (a compile
// error with code SC2005 pointing at the call).
func (s *Service) queryUDFs(ctx context.Context, c Container, q *cosmosql.Query) (*udfCaller, error) {
	calls := cosmosql.UDFCalls(q)
	if len(calls) == 0 {
		return nil, nil
	}
	u := &udfCaller{ctx: ctx, eng: s.ScriptEngine(), fns: map[string]udfFunc{}}
	for _, call := range calls {
		if _, ok := u.fns[call.Name]; ok {
			continue
		}
		sc, err := s.scriptStore().GetScript(ctx, c, ScriptUDF, call.Name)
		var e *Error
		if errors.As(err, &e) && e.Kind == KindNotFound || err == nil && sc.ID != call.Name {
			// (an id is case-sensitive; a RID never parses as a name)
			return nil, queryCompileError(cosmosql.UnknownUDF(call))
		}
		if err != nil {
			return nil, err
		}
		f, err := sc.Fields()
		if err != nil {
			return nil, err
		}
		u.fns[call.Name] = udfFunc{key: jsengine.CacheKey{Container: c.Num, Kind: string(ScriptUDF), ID: sc.ID, ETag: sc.ETag}, body: f.Body}
	}
	return u, nil
}

// CallUDF implements UDFCaller.
func (u *udfCaller) CallUDF(id string, args [][]byte) ([]byte, error) {
	f, ok := u.fns[id]
	if !ok {
		return nil, Errorf(KindInternal, "user-defined function %q was not resolved", id)
	}
	if u.runner == nil {
		r, err := u.eng.NewUDFRunner(u.ctx)
		if err != nil {
			return nil, scriptError(err)
		}
		u.runner = r
	}
	out, err := u.runner.Call(f.key, f.body, args)
	if errors.Is(err, context.Canceled) {
		return nil, err
	}
	return out, scriptError(err)
}

// Close releases the runtime.
func (u *udfCaller) Close() {
	if u.runner != nil {
		u.runner.Close()
	}
}
