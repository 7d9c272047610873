package jsengine

import (
	"github.com/dop251/goja"
)

// MaxJSONDepth bounds the nesting of a value JSON.stringify serialises;
// deeper, it throws RangeError ("Maximum call stack size exceeded"), as
// JavaScript engines do when their native recursion runs out of stack.
// goja's stringify recurses on the Go stack and checks cycles by scanning
// the chain of enclosing objects, so one call costs the square of the
// depth (100,000 levels took 30 s; 5,000 take about 0.1 s) and nothing in
// it checks the time bound. No stored document can be nested more than
// 128 levels, so the bound only stops runaway scripts.
const MaxJSONDepth = 5000

// setJSONGuard gives the wrapper host.jsonReplacer, with which it replaces
// JSON.stringify (before it captures it for its own serialisations of
// bodies and documents) by one that passes every value through a native
// replacer: the replacer tracks the depth, checks the watchdog, and
// applies the script's own replacer (function or property list).
func (x *execution) setJSONGuard(h *goja.Object) {
	rangeError := x.rt.Get("RangeError") // before the script can replace it
	_ = h.Set("jsonReplacer", func(r goja.Value) goja.Value {
		g := &jsonGuard{x: x, rangeError: rangeError}
		if o, ok := r.(*goja.Object); ok && o != nil {
			if f, ok := goja.AssertFunction(o); ok {
				g.user = f
			} else if o.ClassName() == "Array" {
				g.list = propertyList(o)
				g.onChain = map[*goja.Object]int{}
			}
		}
		return x.rt.ToValue(g.replace)
	})
}

// propertyList is JSON.stringify's property list from an array replacer:
// its strings and numbers (or String and Number objects), first
// occurrences only, in order.
func propertyList(o *goja.Object) []string {
	n := int(o.Get("length").ToInteger())
	seen := make(map[string]bool, n)
	list := make([]string, 0, n)
	for i := 0; i < n; i++ {
		v := o.Get(itoa(i))
		if v == nil {
			continue
		}
		switch t := v.(type) {
		case *goja.Object:
			if c := t.ClassName(); c != "Number" && c != "String" {
				continue
			}
		default:
			switch v.ExportType().Kind().String() {
			case "string", "int64", "float64":
			default:
				continue
			}
		}
		name := v.String()
		if !seen[name] {
			seen[name] = true
			list = append(list, name)
		}
	}
	return list
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b [20]byte
	p := len(b)
	for ; i > 0; i /= 10 {
		p--
		b[p] = byte('0' + i%10)
	}
	return string(b[p:])
}

// jsonGuard is the state of one guarded JSON.stringify. Native stringify
// calls the replacer for every value in document order, with the object
// that holds it as this, before it descends into the value; so the chain
// of objects being serialised is a stack whose top is the current holder.
type jsonGuard struct {
	x          *execution
	rangeError goja.Value    // the RangeError constructor
	user       goja.Callable // the script's replacer function
	list       []string      // the script's property list (array replacer)
	// chain holds the objects native stringify descends into (for a
	// property list, the filtered copies), orig the script's objects they
	// stand for, onChain counts these (a property list's copies hide
	// cycles from native stringify's own check).
	chain   []*goja.Object
	orig    []*goja.Object
	onChain map[*goja.Object]int
}

// replace is the native replacer.
func (g *jsonGuard) replace(call goja.FunctionCall) goja.Value {
	rt := g.x.rt
	if g.x.wd != nil && g.x.wd.expired() {
		// past the bound: the runtime is interrupted, this only ends the
		// native step
		panic(rt.NewGoError(ErrTimeout))
	}
	holder, _ := call.This.(*goja.Object)
	for len(g.chain) > 0 && g.chain[len(g.chain)-1] != holder {
		g.pop()
	}
	v := call.Argument(1)
	if g.user != nil {
		var err error
		if v, err = g.user(call.This, call.Argument(0), v); err != nil {
			panic(err)
		}
	}
	o, ok := v.(*goja.Object)
	if !ok || o == nil {
		return v
	}
	if _, fn := goja.AssertFunction(o); fn {
		return v
	}
	if len(g.chain) >= MaxJSONDepth {
		e, err := rt.New(g.rangeError, rt.ToValue("Maximum call stack size exceeded: JSON.stringify of a value nested deeper than "+itoa(MaxJSONDepth)+" levels."))
		if err != nil {
			panic(err)
		}
		panic(e)
	}
	passed := o
	if g.list != nil {
		if g.onChain[o] > 0 {
			panic(rt.NewTypeError("Converting circular structure to JSON"))
		}
		switch o.ClassName() {
		case "Array", "Number", "String", "Boolean", "BigInt", "RawJSON":
		default:
			c := rt.NewObject()
			for _, k := range g.list {
				if pv := o.Get(k); pv != nil {
					_ = c.Set(k, pv)
				}
			}
			passed = c
		}
		g.onChain[o]++
	}
	g.chain = append(g.chain, passed)
	g.orig = append(g.orig, o)
	return passed
}

// pop leaves the innermost object of the chain.
func (g *jsonGuard) pop() {
	n := len(g.chain) - 1
	if g.onChain != nil {
		o := g.orig[n]
		if g.onChain[o]--; g.onChain[o] == 0 {
			delete(g.onChain, o)
		}
	}
	g.chain, g.orig = g.chain[:n], g.orig[:n]
}
