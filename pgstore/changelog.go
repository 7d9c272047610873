package pgstore

import (
	"context"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// The change log (cosmos.changes, migration 0010) records every create,
// replace and delete of every container when its transaction commits; the
// all-versions-and-deletes change feed reads it. Rows are written by a
// deferred row trigger on each items table, so every write path is logged
// alike and rolled-back writes never are. Readers read up to the
// container's horizon (changeHorizon), which keeps the log in commit order
// while writers commit concurrently. The TTL sweeper logs its purges
// itself, set-based, with timeToLiveExpired (logSwept), and the trigger
// skips them (cosmos.sweep_logged). History older than the container's retention is
// trimmed by the sweeper (trimChangeLog). A batch whose only write is a
// run of creates logs it itself at commit, set-based (batchTx.commit).

var _ emulator.ChangeLog = (*Store)(nil)

// changeLogTriggerDDL creates the trigger that logs the writes of container
// n's items table (see migration 0010 for the function).
func changeLogTriggerDDL(n int64) string {
	num := strconv.FormatInt(n, 10)
	return `CREATE CONSTRAINT TRIGGER log_change AFTER INSERT OR UPDATE OR DELETE ON ` + itemsTable(n) +
		` DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION cosmos.log_change('` + num + `');`
}

const changeCols = `seq, op, pk, id, coalesce(doc_seq, 0), lsn, coalesce(prev_lsn, 0), crts, ttl_expired, coalesce(etag, ''), body, txid::text`

// ReadChangeLog implements emulator.ChangeLog: up to p.Limit entries, then
// the rest of the last entry's transaction (its entries are consecutive).
// With p.EPK the statements keep the entries whose epk lies in it; a page
// that comes back short has read every entry up to the horizon, so it is
// complete up to there (ScannedTo), and the feed's continuation moves past
// the entries of other ranges.
func (s *Store) ReadChangeLog(ctx context.Context, p emulator.ReadChangeLogParams) (emulator.ChangeLogPage, error) {
	horizon, err := s.changeHorizon(ctx, p.Container)
	if err != nil || horizon <= p.AfterSeq {
		return emulator.ChangeLogPage{}, err
	}
	a := args{p.Container.Num, p.AfterSeq, horizon}
	where := `coll = $1 AND seq > $2 AND seq <= $3`
	if p.PK != nil {
		where += ` AND pk = ` + a.add(*p.PK)
	}
	cond := epkCond(p.EPK, "epk", &a)
	if cond != "" {
		if err := s.ensureEPK(ctx, p.Container); err != nil {
			return emulator.ChangeLogPage{}, err
		}
		where += ` AND ` + cond
	}
	b := append(args{}, a...)
	out, err := s.readChanges(ctx, `SELECT `+changeCols+` FROM cosmos.changes WHERE `+where+` ORDER BY seq LIMIT `+a.add(p.Limit), planEach(cond != "", a)...)
	if err != nil {
		return emulator.ChangeLogPage{}, err
	}
	if len(out) < p.Limit || len(out) == 0 {
		page := changeLogPage(out)
		if cond != "" {
			page.ScannedTo = horizon
		}
		return page, nil
	}
	// A transaction's entries are consecutive, so its rest ends before
	// the first later entry of another transaction: the scan stops there
	// rather than filtering the whole remaining log.
	last := out[len(out)-1]
	b[1] = last.Seq
	txn := b.add(last.Txn) + `::xid8`
	rest, err := s.readChanges(ctx, `SELECT `+changeCols+` FROM cosmos.changes WHERE `+where+` AND txid = `+txn+
		` AND seq < coalesce((SELECT seq FROM cosmos.changes WHERE `+where+` AND txid <> `+txn+` ORDER BY seq LIMIT 1), 9223372036854775807) ORDER BY seq`, planEach(cond != "", b)...)
	return changeLogPage(append(out, rest...)), err
}

// changeLogPage is the page of an unfiltered read: complete up to its last
// entry.
func changeLogPage(chs []emulator.Change) emulator.ChangeLogPage {
	page := emulator.ChangeLogPage{Changes: chs}
	if len(chs) > 0 {
		page.ScannedTo = chs[len(chs)-1].Seq
	}
	return page
}

// scanChange scans one row of changeCols.
func scanChange(row pgx.Row) (emulator.Change, error) {
	var ch emulator.Change
	var body *string
	if err := row.Scan(&ch.Seq, &ch.Op, &ch.PK, &ch.ID, &ch.DocSeq, &ch.LSN, &ch.PrevLSN, &ch.CRTS, &ch.TTLExpired, &ch.ETag, &body, &ch.Txn); err != nil {
		return ch, classify("read changes", err)
	}
	if body != nil {
		ch.Body = []byte(*body)
	}
	return ch, nil
}

func (s *Store) readChanges(ctx context.Context, sql string, a ...any) ([]emulator.Change, error) {
	rows, err := s.pool.Query(ctx, sql, a...)
	if err != nil {
		return nil, classify("read changes", err)
	}
	defer rows.Close()
	var out []emulator.Change
	for rows.Next() {
		ch, err := scanChange(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, ch)
	}
	return out, classify("read changes", rows.Err())
}

// LastChange implements emulator.ChangeLog: the container's horizon (see
// changeHorizon), after which every entry is one committed later.
func (s *Store) LastChange(ctx context.Context, c emulator.Container) (int64, error) {
	return s.changeHorizon(ctx, c)
}

// changeHorizon returns the log position up to which container c's entries
// are final: every seq at or below it that belongs to c is committed and
// visible to a statement started after this call returns, or was rolled
// back. Writers hold the container's log lock shared from before they draw
// a seq to the end of their transaction; cosmos.change_horizon takes it
// exclusively (waiting for the writers in their commit, holding back new
// ones for a moment) and reads the sequence (migration 0020). Reading up to
// the horizon keeps the log in commit order for readers without making
// writers wait for each other's commits.
func (s *Store) changeHorizon(ctx context.Context, c emulator.Container) (int64, error) {
	var h int64
	err := s.pool.QueryRow(ctx, `SELECT cosmos.change_horizon($1)`, c.Num).Scan(&h)
	return h, classify("change log horizon", err)
}

// retentionSeconds returns how long container c keeps its change history:
// its changeFeedPolicy.retentionDuration (minutes) when positive, else
// emulator.DefaultChangeFeedRetention.
func retentionSeconds(c emulator.Container) int64 {
	minutes := int64(emulator.DefaultChangeFeedRetention.Minutes())
	if m := c.Definition().ChangeFeedRetentionMinutes; m > 0 {
		minutes = m
	}
	return minutes * 60
}

// trimChangeLog deletes, per container, the entries older than its
// retention as of unix time now: at most limit rows of each container per
// call, looking only at its limit oldest rows (the log is in write order,
// so the old rows come first), so each call is bounded. It returns how many
// rows it deleted.
func (s *Store) trimChangeLog(ctx context.Context, now int64, limit int) (int, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+containerCols+` FROM cosmos.containers c JOIN cosmos.databases d ON d.num = c.db_num ORDER BY c.num`)
	if err != nil {
		return 0, err
	}
	cs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (emulator.Container, error) { return scanContainer(r) })
	if err != nil {
		return 0, err
	}
	colls := make([]int64, len(cs))
	cutoffs := make([]int64, len(cs))
	for i, c := range cs {
		colls[i], cutoffs[i] = c.Num, now-retentionSeconds(c)
	}
	tag, err := s.pool.Exec(ctx, `DELETE FROM cosmos.changes ch USING (
  SELECT p.coll, o.seq FROM unnest($1::bigint[], $2::bigint[]) AS p(coll, cutoff)
  CROSS JOIN LATERAL (SELECT seq, crts FROM cosmos.changes WHERE coll = p.coll ORDER BY seq LIMIT $3) o
  WHERE o.crts < p.cutoff
) old WHERE ch.coll = old.coll AND ch.seq = old.seq`, colls, cutoffs, limit)
	return int(tag.RowsAffected()), err
}
