package sqlgen

import (
	"strconv"
	"strings"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/cosmosql"
)

// Array, object and item functions beyond the basic ones of functions.go.

func objectToArray(a []string, ord string) string {
	kn, vn := "'k'::text", "'v'::text"
	if len(a) > 1 {
		kn = "cosmos.str(" + a[1] + ")"
	}
	if len(a) > 2 {
		vn = "cosmos.str(" + a[2] + ")"
	}
	return "cosmos.obj_to_array(" + a[0] + ", " + kn + ", " + vn + ", " + ord + ")"
}

// needles is the SQL array of the arguments from i on (NULL elements stand
// for undefined ones).
func needles(a []string, i int) string {
	return "ARRAY[" + strings.Join(a[i:], ", ") + "]::jsonb[]"
}

func init() {
	register(map[string]fn{
		"ARRAY_CONCAT": {2, -1, func(t *translator, a []string) string {
			s := a[0]
			for _, x := range a[1:] {
				s = "cosmos.array_cat(" + s + ", " + x + ")"
			}
			return s
		}},
		"ARRAY_SLICE": {2, 3, func(t *translator, a []string) string {
			l := "2147483647::numeric"
			if len(a) == 3 {
				l = "cosmos.numx(" + a[2] + ")"
			}
			return "cosmos.array_slice(" + a[0] + ", cosmos.numx(" + a[1] + "), " + l + ")"
		}},
		"ARRAY_CONTAINS_ANY": {2, -1, func(t *translator, a []string) string {
			return "cosmos.array_contains_any(" + a[0] + ", " + needles(a, 1) + ")"
		}},
		"ARRAY_CONTAINS_ALL": {2, -1, func(t *translator, a []string) string {
			return "cosmos.array_contains_all(" + a[0] + ", " + needles(a, 1) + ")"
		}},
		"SETINTERSECT": {2, 2, func(t *translator, a []string) string {
			return "cosmos.set_intersect(" + a[0] + ", " + a[1] + ")"
		}},
		"SETUNION": {2, 2, func(t *translator, a []string) string {
			return "cosmos.set_union(" + a[0] + ", " + a[1] + ")"
		}},
		// ARRAY_SUM, ARRAY_AVG and ARRAY_MEDIAN take an array of numbers
		// (a non-array, or any element that is not a number within the
		// range of a double, is undefined) and yield a double: ARRAY_SUM adds the elements in
		// order as doubles (so [0.1, 0.2] gives 0.30000000000000004) and
		// is 0 for []; ARRAY_AVG is that sum divided by the count;
		// ARRAY_MEDIAN is the middle element in numeric order, or the mean
		// of the two middle ones, (x + y) / 2, for an even count. AVG and
		// MEDIAN of [] are undefined, as is a result that is not finite.
		// (See cosmos.array_sum and its neighbours in migration 0005.)
		"ARRAY_SUM": {1, 1, func(t *translator, a []string) string {
			return "cosmos.array_sum(" + a[0] + ")"
		}},
		"ARRAY_AVG": {1, 1, func(t *translator, a []string) string {
			return "cosmos.array_avg(" + a[0] + ")"
		}},
		"ARRAY_MEDIAN": {1, 1, func(t *translator, a []string) string {
			return "cosmos.array_median(" + a[0] + ")"
		}},
		// ARRAY_MIN and ARRAY_MAX follow the MIN and MAX aggregates: the
		// type order null < false < true < numbers < strings (strings by
		// code point), undefined for [], a non-array, or an array with an
		// array or object element.
		"ARRAY_MIN": {1, 1, func(t *translator, a []string) string {
			return "cosmos.array_min(" + a[0] + ")"
		}},
		"ARRAY_MAX": {1, 1, func(t *translator, a []string) string {
			return "cosmos.array_max(" + a[0] + ")"
		}},
		// CHOOSE(i, v1, v2, ...): 1-based; out of range is undefined.
		"CHOOSE": {2, -1, func(t *translator, a []string) string {
			s := "(CASE cosmos.numx(" + a[0] + ")"
			for i, v := range a[1:] {
				s += " WHEN " + strconv.Itoa(i+1) + " THEN " + v
			}
			return s + " END)"
		}},
	})

	// OBJECTTOARRAY(obj[, keyName[, valueName]]): one {k, v} object per
	// member; members read from the stored document keep its order.
	// (The plain form, used over groups, has the jsonb order.)
	register(map[string]fn{"OBJECTTOARRAY": {1, 3, func(t *translator, a []string) string { return objectToArray(a, "NULL::json") }}})
	astFunctions["OBJECTTOARRAY"] = astFn{1, 3, func(t *translator, x []cosmosql.Expr) (string, error) {
		a, err := t.vals(x)
		if err != nil {
			return "", err
		}
		return objectToArray(a, t.orderedJSON(x[0])), nil
	}}

	// DOCUMENTID(c): the document part of c's _rid as a number, which is
	// the row's seq (see cosmos.doc_rid), for the container's own alias.
	astFunctions["DOCUMENTID"] = astFn{1, 1, func(t *translator, x []cosmosql.Expr) (string, error) {
		if id, ok := x[0].(*cosmosql.Ident); ok {
			if b, ok := t.binds[id.Name]; ok && b.root {
				return "to_jsonb(r.seq)", nil
			}
		}
		return "", unsupported("DOCUMENTID of anything but the container's alias")
	}}
}
