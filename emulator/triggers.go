package emulator

import (
	"context"
	"strings"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/jsengine"
)

// Write operations as triggers name them (getRequest().getOperationType()
// and triggerOperation).
const (
	OpCreate  = "Create"
	OpUpsert  = "Upsert"
	OpReplace = "Replace"
	OpDelete  = "Delete"
)

// hasTriggers reports whether a write names a pre- or post-trigger.
func (r ItemRequest) hasTriggers() bool {
	return strings.TrimSpace(r.PreTrigger) != "" || strings.TrimSpace(r.PostTrigger) != ""
}

// triggerMatches reports whether a trigger defined for operation defined
// runs for the write op: All, the same operation, or Update for a replace.
func triggerMatches(defined, op string) bool {
	return defined == "All" || defined == op || (defined == "Update" && op == OpReplace)
}

// loadedTrigger is a trigger named by a write, with its source.
type loadedTrigger struct {
	sc   Script
	body string
}

// loadTrigger resolves the trigger an include header names ("" for none):
// one id, of the wanted type ("Pre" or "Post"), defined for op.
func (s *Service) loadTrigger(ctx context.Context, c Container, header, wantType, op string) (*loadedTrigger, error) {
	ids := strings.Split(header, ",")
	id := strings.TrimSpace(ids[0])
	if id == "" {
		return nil, nil
	}
	if len(ids) > 1 {
		return nil, BadRequest("Only one %s-trigger per operation is supported; the request names %d: '%s'.", strings.ToLower(wantType), len(ids), header)
	}
	sc, err := s.scriptStore().GetScript(ctx, c, ScriptTrigger, id)
	if err != nil {
		return nil, err
	}
	f, err := sc.Fields()
	if err != nil {
		return nil, err
	}
	if f.TriggerType != wantType {
		return nil, BadRequest("Trigger '%s' is a %s-trigger and cannot be included as a %s-trigger.", sc.ID, strings.ToLower(f.TriggerType), strings.ToLower(wantType))
	}
	if !triggerMatches(f.TriggerOperation, op) {
		return nil, BadRequest("Trigger '%s' was defined with operation type '%s', and therefore is invalid for '%s'.", sc.ID, f.TriggerOperation, op)
	}
	return &loadedTrigger{sc: sc, body: f.Body}, nil
}

// runTrigger runs t for op in container c through host h.
func (s *Service) runTrigger(ctx context.Context, c Container, t *loadedTrigger, op string, h *scriptHost, req, resp []byte, post bool) (jsengine.Result, error) {
	return s.ScriptEngine().Run(ctx, jsengine.Script{
		Key:    jsengine.CacheKey{Container: c.Num, Kind: string(ScriptTrigger), ID: t.sc.ID, ETag: t.sc.ETag},
		Source: t.body, Host: h, RequestBody: req, OperationType: op,
		HasResponse: post, ResponseBody: resp,
	})
}

// triggeredWrite performs a create, upsert, replace or delete with the
// triggers its request names, in one transaction confined to the
// request's logical partition: the pre-trigger may rewrite the request
// body (getRequest().setBody), the write uses what it leaves, and the
// post-trigger sees the request and the written resource and may set the
// response body; a throw anywhere rolls all of it back (400, as a stored
// procedure's). Operations the triggers perform run no triggers.
func (s *Service) triggeredWrite(ctx context.Context, op string, r ItemRequest) (ItemResult, error) {
	c, err := s.store.GetContainer(ctx, r.Database, r.Container)
	if err != nil {
		return ItemResult{}, err
	}
	res := ItemResult{Container: c}
	pk, err := checkPKHeader(c, r.PartitionKey)
	if err != nil {
		return res, err
	}
	pre, err := s.loadTrigger(ctx, c, r.PreTrigger, "Pre", op)
	if err != nil {
		return res, err
	}
	post, err := s.loadTrigger(ctx, c, r.PostTrigger, "Post", op)
	if err != nil {
		return res, err
	}
	if op != OpDelete {
		// a body that is no JSON object fails as it does without triggers
		if _, err := decodeObject(ctx, r.Body); err != nil {
			return res, err
		}
	}
	err = s.store.InScriptTx(ctx, func(tx ScriptTx) error {
		res = ItemResult{Container: c} // a run again starts afresh
		h := &scriptHost{s: s, c: c, pk: pk, tx: tx}
		key := ItemKey{Container: c, PK: pk, ID: r.ID, Expiry: s.expiry(c)}
		reqBody := r.Body
		if op == OpDelete {
			cur, err := tx.ReadItem(ctx, key)
			if err != nil {
				return err
			}
			reqBody = cur.JSON(c)
		}
		if pre != nil {
			out, err := s.runTrigger(ctx, c, pre, op, h, reqBody, nil, false)
			if err != nil {
				return err
			}
			if out.RequestBody != nil {
				reqBody = out.RequestBody
			}
		}
		var written []byte
		if op == OpDelete {
			lsn, err := tx.DeleteItem(ctx, key, r.IfMatch)
			if err != nil {
				return err
			}
			res.Item = Item{ID: r.ID, PK: pk, LSN: lsn}
			written = reqBody
		} else {
			p, err := prepareItem(ctx, c, reqBody, r.PartitionKey)
			if err != nil {
				return err
			}
			wp := s.writeParams(c, p, r.IfMatch)
			switch op {
			case OpCreate:
				wp.IfMatch = ""
				res.Item, err = tx.CreateItem(ctx, wp)
				res.Created = err == nil
			case OpUpsert:
				res.Item, res.Created, err = tx.UpsertItem(ctx, wp)
			default:
				if p.id != r.ID {
					return idMismatch(p.id, r.ID)
				}
				res.Item, err = tx.ReplaceItem(ctx, wp)
			}
			if err != nil {
				return err
			}
			written = res.Item.JSON(c)
		}
		if post != nil {
			out, err := s.runTrigger(ctx, c, post, op, h, reqBody, written, true)
			if err != nil {
				return err
			}
			if op != OpDelete && out.BodySet && out.Body != nil {
				res.Body = out.Body
			}
		}
		return nil
	})
	if err != nil {
		res.Created = false
		return res, scriptError(err)
	}
	return res, nil
}
