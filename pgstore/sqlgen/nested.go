package sqlgen

import (
	"strconv"
	"strings"
)

// iteration is one iteration source of a query (x IN c.arr, or a JOIN
// over a subquery): a lateral row source whose rows carry the value v and
// the ordinal o, named name.
type iteration struct {
	src, name string
}

// iterate adds the iteration source src, named name, to the scope.
func (sc *scope) iterate(src, name string) {
	sc.from = append(sc.from, "CROSS JOIN LATERAL "+src)
	sc.iters = append(sc.iters, iteration{src: src, name: name})
	sc.ords = append(sc.ords, name+".o")
}

// nestedPage builds the statement of a page of a query that iterates
// arrays (FROM x IN, JOIN) and has no ORDER BY, so that the page stops at
// its row count however many tuples the iterations would produce.
//
// The flat form, FROM r CROSS JOIN LATERAL j1 CROSS JOIN LATERAL j2 ...
// ORDER BY r.seq, j1.o, j2.o LIMIT n, makes PostgreSQL produce every tuple
// of a document before it can sort them (only r.seq comes presorted from
// the nested loop): a document holding an array of 100,000 elements
// joined with itself is 10^10 tuples before the first row of the page. So
// each iteration is a lateral subquery of its own, ordered by its ordinal
// and cut at the page's fetch count:
//
//	SELECT r.seq, x0.o0, x0.o1, x0.c0, ...
//	FROM (SELECT * FROM items AS r WHERE <terms over r alone> ORDER BY r.seq) AS r
//	CROSS JOIN LATERAL (
//	  SELECT j1.o AS o0, x1.* FROM <j1> CROSS JOIN LATERAL (
//	    SELECT j2.o AS o1, <output columns> AS c0, ... FROM <j2>
//	    WHERE <terms over j2> ORDER BY j2.o LIMIT n) AS x1
//	  WHERE <terms over j1> ORDER BY j1.o, x1.o1 LIMIT n) AS x0
//	ORDER BY r.seq LIMIT n
//
// A function scan WITH ORDINALITY comes ordered by its ordinal, so every
// level's sort is an incremental sort over groups of at most n rows, and
// each level stops after n of them: the work of a page grows with the page
// and the arrays' lengths, not with their product. The top level sorts
// nothing: the documents come ordered by seq (unique) from their
// subquery, each level's rows in its order, and a nested loop keeps both,
// so ORDER BY r.seq is already satisfied, and rows reach the client as
// they are made (a page stopped by its time budget keeps them). The terms
// of the WHERE clause that use no iteration stay on r (where its indexes
// serve them); each other term, and the keyset after the cursor, is
// evaluated in the level of the last iteration it reads; the output
// columns in the innermost level, where every alias is bound. cols are
// the output columns after r.seq and the ordinals, where the terms, cur
// the keyset (nil: from the start), fetch the rows of the page and offset
// the OFFSET of a first page.
func (t *translator) nestedPage(sc *scope, cols, where []string, cur *Cursor, fetch int, offset int64) string {
	k := len(sc.iters)
	// a term is evaluated at the outermost level where all it reads is
	// bound: on r, or in the level of the last iteration it reads
	var outer []string
	levelWhere := make([][]string, k)
	for _, w := range where {
		if i := sc.lastIteration(w); i >= 0 {
			levelWhere[i] = append(levelWhere[i], w)
		} else {
			outer = append(outer, w)
		}
	}
	// each level keeps the rows the page may need: with OFFSET, the
	// skipped ones too
	n := t.bind(int64(fetch) + offset)
	levelOrd := make([]string, k) // the ordinal column of each level
	for i, it := range sc.iters {
		levelOrd[i] = it.name + ".o"
	}
	if cur != nil {
		seq := t.bind(cur.Seq)
		outer = append(outer, "r.seq >= "+seq)
		ords := make([]string, k)
		for i, o := range cur.Ords {
			ords[i] = t.bind(o)
		}
		// level i skips the prefixes before the cursor's; the innermost
		// one also the cursor's own tuple
		for i := range sc.iters {
			op := " >= "
			if i == k-1 {
				op = " > "
			}
			cond := "(r.seq > " + seq + " OR (" + strings.Join(levelOrd[:i+1], ", ") + ")" + op + "(" + strings.Join(ords[:i+1], ", ") + "))"
			if i == 0 && k == 1 {
				// a one-column row comparison is a plain comparison
				cond = "(r.seq > " + seq + " OR " + levelOrd[0] + op + ords[0] + ")"
			}
			levelWhere[i] = append(levelWhere[i], cond)
		}
	}
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c + " AS c" + strconv.Itoa(i)
	}
	var sql string
	for i := k - 1; i >= 0; i-- {
		it := sc.iters[i]
		o := "o" + strconv.Itoa(i)
		order := []string{it.name + ".o"}
		var sel, from string
		if i == k-1 {
			sel = it.name + ".o AS " + o
			if len(names) > 0 {
				sel += ", " + strings.Join(names, ", ")
			}
			from = it.src
		} else {
			x := "x" + strconv.Itoa(i+1)
			sel = it.name + ".o AS " + o + ", " + x + ".*"
			from = it.src + " CROSS JOIN LATERAL (" + sql + ") AS " + x
			for j := i + 1; j < k; j++ {
				order = append(order, x+".o"+strconv.Itoa(j))
			}
		}
		ws := levelWhere[i]
		sql = "SELECT " + sel + " FROM " + from
		if len(ws) > 0 {
			sql += " WHERE " + strings.Join(ws, " AND ")
		}
		sql += " ORDER BY " + strings.Join(order, ", ") + " LIMIT " + n
	}
	sel := []string{"r.seq"}
	for i := range sc.iters {
		sel = append(sel, "x0.o"+strconv.Itoa(i))
	}
	for i := range cols {
		sel = append(sel, "x0.c"+strconv.Itoa(i))
	}
	if len(outer) == 0 {
		outer = []string{"TRUE"}
	}
	// The documents come from a subquery ordered by seq, and the levels
	// each in their order, so the nested loop yields the rows in the
	// page's order and the ORDER BY r.seq above needs no sort: a sort
	// over the joined rows would hold each document's rows (or the whole
	// page's) until all are computed, and a page stopped by its time
	// budget (pgstore) would have nothing to return.
	out := "SELECT " + strings.Join(sel, ", ") + " FROM (SELECT * FROM " + sc.from[0] + " WHERE " + strings.Join(outer, " AND ") +
		" ORDER BY r.seq) AS r CROSS JOIN LATERAL (" + sql + ") AS x0 ORDER BY r.seq LIMIT " + t.bind(fetch)
	if cur == nil && offset > 0 {
		out += " OFFSET " + t.bind(offset)
	}
	return out
}

// lastIteration returns the index of the last iteration of sc that the
// SQL term w reads (an alias j<n>. in its text), -1 for none. A property
// name that happens to contain such text only moves a term inward, which
// costs time, never results.
func (sc *scope) lastIteration(w string) int {
	for i := len(sc.iters) - 1; i >= 0; i-- {
		if strings.Contains(w, sc.iters[i].name+".") {
			return i
		}
	}
	return -1
}
