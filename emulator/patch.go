package emulator

import (
	"context"
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// PatchOperation is one partial-update operation (reference §8.4).
type PatchOperation struct {
	Op    string // add, set, replace, remove, incr, move
	Path  []string
	From  []string // move only
	Value any      // decoded JSON; absent for remove and move
	raw   string   // the path as sent, for messages
}

// PatchOperations is a parsed patch request.
type PatchOperations []PatchOperation

// ParsePatch parses a patch body: {"operations":[...], "condition": "from c
// where ..."} (the condition is optional) or a bare array of operations
// (the JS SDK's form). It returns the operations and the condition ("" for
// none).
func ParsePatch(ctx context.Context, body []byte) (PatchOperations, string, error) {
	v, err := decodeBody(ctx, body)
	if err != nil {
		return nil, "", err
	}
	return parsePatchValue(v)
}

// parsePatchValue is ParsePatch over a decoded body (a list of operations
// or {"condition","operations"}).
func parsePatchValue(v any) (PatchOperations, string, error) {
	ops, err := parsePatch(v)
	if err != nil {
		return nil, "", err
	}
	if o, ok := v.(*Object); ok {
		if c, ok := o.Get("condition"); ok && c != nil {
			cs, ok := c.(string)
			if !ok {
				return nil, "", BadRequest("The patch condition must be a string such as \"from c where c.n > 0\".")
			}
			return ops, cs, nil
		}
	}
	return ops, "", nil
}

func parsePatch(v any) (PatchOperations, error) {
	var list []any
	switch t := v.(type) {
	case []any:
		list = t
	case *Object:
		ops, ok := t.Get("operations")
		if !ok {
			return nil, BadRequest("The patch request has no operations.")
		}
		if list, ok = ops.([]any); !ok {
			return nil, BadRequest("The patch operations must be a JSON array.")
		}
	default:
		return nil, ErrInvalidPayload
	}
	if len(list) == 0 {
		return nil, BadRequest("The patch request has no operations.")
	}
	if len(list) > MaxPatchOperations {
		return nil, BadRequest("The number of patch operations (%d) exceeds the maximum of %d.", len(list), MaxPatchOperations)
	}
	ops := make(PatchOperations, 0, len(list))
	for i, e := range list {
		o, ok := e.(*Object)
		if !ok {
			return nil, BadRequest("Patch operation %d is not a JSON object.", i)
		}
		var op PatchOperation
		opv, _ := o.Get("op")
		name, _ := opv.(string)
		op.Op = strings.ToLower(name)
		switch op.Op {
		case "add", "set", "replace", "remove", "incr", "move":
		default:
			return nil, BadRequest("Patch operation %d has an invalid op '%v'. Valid ops are add, set, replace, remove, incr and move.", i, name)
		}
		pathv, _ := o.Get("path")
		path, ok := pathv.(string)
		if op.Path, ok = parsePointer(path, ok); !ok {
			return nil, BadRequest("Patch operation %d has an invalid path '%v'.", i, pathv)
		}
		op.raw = path
		if op.Op == "move" {
			fromv, _ := o.Get("from")
			from, ok := fromv.(string)
			if op.From, ok = parsePointer(from, ok); !ok {
				return nil, BadRequest("Patch operation %d (move) has an invalid from '%v'.", i, fromv)
			}
			if from == path || strings.HasPrefix(path, from+"/") {
				return nil, BadRequest("Patch operation %d (move): the path '%s' must not be inside from '%s'.", i, path, from)
			}
		} else if op.Op != "remove" {
			val, ok := o.Get("value")
			if !ok {
				return nil, BadRequest("Patch operation %d (%s) has no value.", i, op.Op)
			}
			if op.Op == "incr" {
				if _, isNum := val.(json.Number); !isNum {
					return nil, BadRequest("Patch operation %d (incr) needs a numeric value.", i)
				}
			}
			op.Value = val
		}
		ops = append(ops, op)
	}
	return ops, nil
}

// parsePointer splits a JSON Pointer ("/a/b/0", ~1 for '/', ~0 for '~').
// The root ("" or "/") is not a valid patch target.
func parsePointer(p string, ok bool) ([]string, bool) {
	if !ok || !strings.HasPrefix(p, "/") || p == "/" {
		return nil, false
	}
	parts := strings.Split(p[1:], "/")
	for i, s := range parts {
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
	}
	return parts, true
}

// Apply applies the operations in order to doc. On error doc may be
// partially modified; callers discard it. A result nesting deeper than
// MaxJSONDepth is a 400.
func (ops PatchOperations) Apply(doc *Object) error {
	for i, op := range ops {
		if err := op.apply(doc); err != nil {
			if e, ok := err.(*Error); ok {
				return e
			}
			return BadRequest("Patch operation %d (%s %s) failed: %v", i, op.Op, op.raw, err)
		}
	}
	return checkDepth(doc)
}

func (op PatchOperation) apply(doc *Object) error {
	switch op.Op {
	case "move":
		v, err := removeAt(doc, op.From)
		if err != nil {
			return err
		}
		return setAt(doc, op.Path, v, "set")
	case "remove":
		_, err := removeAt(doc, op.Path)
		return err
	case "incr":
		cur, err := getAt(doc, op.Path)
		if err != nil {
			return setAt(doc, op.Path, op.Value, "add")
		}
		n, ok := cur.(json.Number)
		if !ok {
			return BadRequest("Patch operation incr at '%s': the target is not a number.", op.raw)
		}
		return setAt(doc, op.Path, addNumbers(n, op.Value.(json.Number)), "set")
	default:
		return setAt(doc, op.Path, op.Value, op.Op)
	}
}

// addNumbers adds two JSON numbers: exactly as integers when both are
// integers that fit in int64, else as doubles.
func addNumbers(a, b json.Number) json.Number {
	ai, errA := strconv.ParseInt(string(a), 10, 64)
	bi, errB := strconv.ParseInt(string(b), 10, 64)
	if errA == nil && errB == nil {
		s := ai + bi
		if (s > ai) == (bi > 0) || bi == 0 {
			return json.Number(strconv.FormatInt(s, 10))
		}
	}
	af, _ := a.Float64()
	bf, _ := b.Float64()
	sum := af + bf
	if math.IsInf(sum, 0) {
		sum = math.Copysign(math.MaxFloat64, sum)
	}
	return json.Number(AppendNumber(nil, sum))
}

// parent walks to the container of the last path segment.
func parent(doc *Object, path []string) (any, error) {
	var cur any = doc
	for _, seg := range path[:len(path)-1] {
		switch t := cur.(type) {
		case *Object:
			v, ok := t.Get(seg)
			if !ok {
				return nil, BadRequest("The path segment '%s' does not exist.", seg)
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(t) {
				return nil, BadRequest("The array index '%s' is out of range.", seg)
			}
			cur = t[i]
		default:
			return nil, BadRequest("The path segment '%s' is not inside an object or array.", seg)
		}
	}
	return cur, nil
}

func getAt(doc *Object, path []string) (any, error) {
	p, err := parent(doc, path)
	if err != nil {
		return nil, err
	}
	last := path[len(path)-1]
	switch t := p.(type) {
	case *Object:
		if v, ok := t.Get(last); ok {
			return v, nil
		}
	case []any:
		if i, err := strconv.Atoi(last); err == nil && i >= 0 && i < len(t) {
			return t[i], nil
		}
	}
	return nil, BadRequest("The target path does not exist.")
}

// setAt writes v at path with add/set/replace semantics.
func setAt(doc *Object, path []string, v any, mode string) error {
	p, err := parent(doc, path)
	if err != nil {
		return err
	}
	last := path[len(path)-1]
	switch t := p.(type) {
	case *Object:
		if _, exists := t.Get(last); !exists && mode == "replace" {
			return BadRequest("The replace target '%s' does not exist.", last)
		}
		t.Set(last, v)
		return nil
	case []any:
		arr := t
		var i int
		if last == "-" {
			i = len(arr)
		} else if i, err = strconv.Atoi(last); err != nil || i < 0 {
			return BadRequest("The array index '%s' is invalid.", last)
		}
		switch {
		case mode == "add" && i <= len(arr):
			arr = append(arr, nil)
			copy(arr[i+1:], arr[i:])
			arr[i] = v
		case (mode == "set" || mode == "replace") && i < len(arr):
			arr[i] = v
		case mode == "set" && i == len(arr):
			arr = append(arr, v)
		default:
			return BadRequest("The array index '%s' is out of range.", last)
		}
		return replaceContainerValue(doc, path[:len(path)-1], arr)
	default:
		return BadRequest("The target of '%s' is not inside an object or array.", last)
	}
}

// replaceContainerValue stores a (possibly reallocated) array back at path.
func replaceContainerValue(doc *Object, path []string, arr []any) error {
	if len(path) == 0 {
		return BadRequest("The document root is not an array.")
	}
	return setAt(doc, path, arr, "set")
}

func removeAt(doc *Object, path []string) (any, error) {
	p, err := parent(doc, path)
	if err != nil {
		return nil, err
	}
	last := path[len(path)-1]
	switch t := p.(type) {
	case *Object:
		v, ok := t.Get(last)
		if !ok {
			return nil, BadRequest("The remove target '%s' does not exist.", last)
		}
		t.Delete(last)
		return v, nil
	case []any:
		i, err := strconv.Atoi(last)
		if err != nil || i < 0 || i >= len(t) {
			return nil, BadRequest("The array index '%s' is out of range.", last)
		}
		v := t[i]
		arr := append(append([]any{}, t[:i]...), t[i+1:]...)
		return v, replaceContainerValue(doc, path[:len(path)-1], arr)
	default:
		return nil, BadRequest("The target of '%s' is not inside an object or array.", last)
	}
}
