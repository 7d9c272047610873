package pgstore

import (
	"context"
	"math"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/sqlgen"
)

// Scan windows: a page whose time budget runs out before it finds a
// result still moves the query on.
//
// A selective query over much work (a 4-way JOIN whose filter matches
// little) can spend a page's whole budget without one result. Its keyset
// cursor cannot move past rows it returned none of, so without more the
// page could only answer 408 and no continuation: the client can neither
// finish nor resume. The service answers such a page with an empty page
// and a continuation that resumes where the work stopped. Here the work
// is bounded instead: the next page scans a window of documents (by seq,
// the order of pages without ORDER BY), and a page that has examined its
// whole window ends with a continuation after the window's last document,
// with or without results.
//
//   - A page that runs out of budget with no result answers an empty page
//     whose token asks the next page to scan half as many documents as the
//     last one could (at first, half the documents left, counted up to
//     windowProbe); when the window is already one document (or one is
//     left), no smaller piece of work exists and the answer is 408, as
//     before.
//   - A windowed page that examines its whole window doubles the window
//     for the next one (up to maxWindow), so a query recovers its speed
//     once past the costly documents.
//   - A page that fills (or ends by its budget with some results) keeps
//     its window: the next page starts after its last result.
//
// Only pages ordered by seq qualify (no ORDER BY, GROUP BY, DISTINCT,
// aggregate, OFFSET, UDF, and not inside a script): their cursor is
// (seq, join ordinals), and "after the window's last document" is that
// document's seq with every ordinal at its maximum.

// windowProbe bounds the count of documents left that sizes the first
// window (half of them).
const windowProbe = 1024

// maxWindow bounds a window's growth.
const maxWindow = 1 << 20

// windowable reports whether the pages of st follow seq order with a
// keyset cursor only (see above).
func windowable(p queryRun, st *sqlgen.Statement) bool {
	return !p.raw && p.on == nil && !p.udf && !st.Single && !st.OffsetPaging && st.SortKeys == 0 && st.Offset == 0 && st.UDFCols == 0
}

// scanWindow is the window of one page: size documents after the cursor,
// the last of which has seq end; bounded is false when fewer than size+1
// documents are left (the page then scans to the end, unbounded).
type scanWindow struct {
	size    int64
	end     int64
	bounded bool
}

// windowEnd finds the window of size documents after cursor cur (nil: the
// start) in c's items table, with one look-up on the seq index.
func (s *Store) windowEnd(ctx context.Context, c emulator.Container, cur *sqlgen.Cursor, size int64) (scanWindow, error) {
	w := scanWindow{size: size}
	var after int64
	if cur != nil {
		after = cur.Seq
	}
	rows, err := s.pool.Query(ctx, `SELECT seq FROM `+itemsTable(c.Num)+` WHERE seq > $1 ORDER BY seq OFFSET $2 LIMIT 2`, after, size-1)
	if err != nil {
		return w, classify("query window", err)
	}
	defer rows.Close()
	var seqs []int64
	for rows.Next() {
		var seq int64
		if err := rows.Scan(&seq); err != nil {
			return w, classify("query window", err)
		}
		seqs = append(seqs, seq)
	}
	if err := rows.Err(); err != nil {
		return w, classify("query window", err)
	}
	if len(seqs) == 2 {
		w.end, w.bounded = seqs[0], true
	}
	return w, nil
}

// documentsAfter counts the documents after cursor cur (nil: the start),
// up to limit.
func (s *Store) documentsAfter(ctx context.Context, c emulator.Container, cur *sqlgen.Cursor, limit int64) (int64, error) {
	var after, n int64
	if cur != nil {
		after = cur.Seq
	}
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM `+itemsTable(c.Num)+` WHERE seq > $1 ORDER BY seq LIMIT $2) AS d`, after, limit).Scan(&n)
	return n, classify("query window", err)
}

// pastDocument is the cursor after every row of the document with seq
// seq, for a statement with joins join ordinals; taken counts the results
// returned so far.
func pastDocument(seq int64, joins int, taken int64) *sqlgen.Cursor {
	c := &sqlgen.Cursor{Seq: seq, Taken: taken}
	for range joins {
		c.Ords = append(c.Ords, math.MaxInt64)
	}
	return c
}

// nextWindowAfterTimeout is the window of the page after one that ran out
// of budget without a result: half of w (a windowed page) or half of the
// documents left after cur; 0 when no smaller piece of work exists.
func (s *Store) nextWindowAfterTimeout(ctx context.Context, c emulator.Container, cur *sqlgen.Cursor, w scanWindow) (int64, error) {
	if w.size > 0 {
		return w.size / 2, nil
	}
	n, err := s.documentsAfter(ctx, c, cur, windowProbe)
	if err != nil {
		return 0, err
	}
	return n / 2, nil
}
