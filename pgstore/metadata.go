package pgstore

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// ---- databases

const databaseCols = `num, id, rid, ts, etag`

func scanDatabase(row pgx.Row) (emulator.Database, error) {
	var d emulator.Database
	err := row.Scan(&d.Num, &d.ID, &d.RID, &d.TS, &d.ETag)
	return d, err
}

// CreateDatabase implements emulator.Store.
func (s *Store) CreateDatabase(ctx context.Context, p emulator.CreateDatabaseParams) (emulator.Database, error) {
	var d emulator.Database
	err := s.metaTx(ctx, func(tx pgx.Tx) error {
		var num int64
		if err := tx.QueryRow(ctx, `SELECT nextval('cosmos.resource_num_seq')`).Scan(&num); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `INSERT INTO cosmos.databases (num, id, rid, ts, etag) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING`,
			num, p.ID, emulator.DatabaseRID(num), p.TS, p.ETag)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return emulator.ErrConflict
		}
		d = emulator.Database{Num: num, ID: p.ID, RID: emulator.DatabaseRID(num), TS: p.TS, ETag: p.ETag}
		if p.Offer != nil {
			return insertOffer(ctx, tx, &num, nil, d.RID, "dbs/"+d.RID+"/", p.Offer.Content, p.TS, p.ETag)
		}
		return nil
	})
	return d, classify("create database", err)
}

func insertOffer(ctx context.Context, tx pgx.Tx, dbNum, collNum *int64, resourceRID, resourceSelf string, content []byte, ts int64, etag string) error {
	var num int64
	if err := tx.QueryRow(ctx, `SELECT nextval('cosmos.offer_num_seq')`).Scan(&num); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, `INSERT INTO cosmos.offers (num, rid, db_num, coll_num, resource_rid, resource_self, content, ts, etag)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		num, emulator.OfferRID(num), dbNum, collNum, resourceRID, resourceSelf, string(content), ts, etag)
	return err
}

// lookupDatabase is the WHERE clause resolving a database reference: by id,
// else by RID.
const lookupDatabase = `SELECT ` + databaseCols + ` FROM cosmos.databases WHERE id = $1 OR rid = $1 ORDER BY (id = $1) DESC LIMIT 1`

// GetDatabase implements emulator.Store.
func (s *Store) GetDatabase(ctx context.Context, ref string) (emulator.Database, error) {
	d, err := scanDatabase(s.pool.QueryRow(ctx, lookupDatabase, ref))
	return d, classify("get database", err)
}

// ListDatabases implements emulator.Store.
func (s *Store) ListDatabases(ctx context.Context) ([]emulator.Database, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+databaseCols+` FROM cosmos.databases ORDER BY num`)
	if err != nil {
		return nil, classify("list databases", err)
	}
	ds, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (emulator.Database, error) { return scanDatabase(r) })
	return ds, classify("list databases", err)
}

// DeleteDatabase implements emulator.Store: it retires every container's
// items table (renamed at once, dropped in the background: see
// tablepool.go) and deletes the rows (containers and offers cascade).
func (s *Store) DeleteDatabase(ctx context.Context, ref string) error {
	err := s.metaTx(ctx, func(tx pgx.Tx) error {
		d, err := scanDatabase(tx.QueryRow(ctx, lookupDatabase+` FOR UPDATE`, ref))
		if err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT num FROM cosmos.containers WHERE db_num = $1`, d.Num)
		if err != nil {
			return err
		}
		nums, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			return err
		}
		if err := retireTables(ctx, tx, nums); err != nil {
			return err
		}
		if _, err = tx.Exec(ctx, `DELETE FROM cosmos.databases WHERE num = $1`, d.Num); err != nil {
			return err
		}
		return s.notifyMetadataChanged(ctx, tx)
	})
	s.cache.clear()
	if err == nil {
		poke(s.tables.drop)
	}
	return classify("delete database", err)
}

// ResetAll implements emulator.Store in one transaction, as
// DeleteDatabase does for one database but with one statement for all:
// it locks the metadata tables against writers (EXCLUSIVE: container
// lookups, which only read, go on; creates, replaces, deletes, splits and
// user or script writes wait, and so cannot add a container whose table
// the reset would miss), retires every container's items table (the
// rename waits for each container's operations in flight; afterwards its
// name no longer resolves, so a late operation gets 404) and deletes every
// database, the rest following by ON DELETE CASCADE. The dropping worker
// then drops the tables and their change log in the background. The
// sequences are left alone on purpose: a database or container created
// again gets new numbers, hence new RIDs and its own change feed, and a
// session token or RID a client kept from before never names it. The
// spare tables stay: they belong to no container.
func (s *Store) ResetAll(ctx context.Context) (int, error) {
	var removed int
	var nums []int64
	err := s.metaTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `LOCK TABLE cosmos.databases, cosmos.containers IN EXCLUSIVE MODE`); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT num FROM cosmos.containers ORDER BY num`)
		if err != nil {
			return err
		}
		if nums, err = pgx.CollectRows(rows, pgx.RowTo[int64]); err != nil {
			return err
		}
		if err := retireTables(ctx, tx, nums); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `DELETE FROM cosmos.databases`)
		if err != nil {
			return err
		}
		removed = int(tag.RowsAffected())
		return s.notifyMetadataChanged(ctx, tx)
	})
	s.cache.clear()
	if err == nil && len(nums) > 0 {
		poke(s.tables.drop)
	}
	return removed, classify("reset", err)
}

// ---- containers

// containerCols are the columns scanContainer reads, the container's live
// partition key ranges included (one JSON array, in EPK order), so that a
// container lookup stays one round trip.
const containerCols = `c.num, c.db_num, d.id, d.rid, c.id, c.rid, c.props, c.pk_def, c.default_ttl, c.ts, c.etag,
c.ranges_version, c.next_range_id, (` + liveRangesSQL + `)`

// liveRangesSQL is the JSON array of the live ranges of container c.num,
// shaped like emulator.PartitionKeyRange.
const liveRangesSQL = `SELECT jsonb_agg(jsonb_build_object('id', r.id::text, 'minInclusive', r.min_inclusive,
 'maxExclusive', r.max_exclusive, 'parents', to_jsonb(r.parents::text[]), 'status', r.status, 'lsn', r.lsn,
 'ridPrefix', r.rid_prefix, 'ts', r.ts) ORDER BY r.min_inclusive)
FROM cosmos.partition_key_ranges r WHERE r.coll_num = c.num AND r.status = 'online'`

func scanContainer(row pgx.Row) (emulator.Container, error) {
	var c emulator.Container
	var props string
	var pkDef, ranges []byte
	err := row.Scan(&c.Num, &c.DatabaseNum, &c.DatabaseID, &c.DatabaseRID, &c.ID, &c.RID, &props, &pkDef, &c.DefaultTTL, &c.TS, &c.ETag,
		&c.RangesVersion, &c.NextRangeID, &ranges)
	if err != nil {
		return c, err
	}
	c.Properties = []byte(props)
	c.Def, _ = emulator.ParseContainerDefinition(c.Properties) // (stored bodies are objects)
	if err := json.Unmarshal(pkDef, &c.PartitionKey); err != nil {
		return c, fmt.Errorf("container %s: partition key definition: %w", c.ID, err)
	}
	if ranges != nil {
		if err := json.Unmarshal(ranges, &c.Ranges); err != nil {
			return c, fmt.Errorf("container %s: partition key ranges: %w", c.ID, err)
		}
	}
	return c, nil
}

// insertRanges stores ranges of container collNum, made with the database
// at its latest LSN.
func insertRanges(ctx context.Context, tx pgx.Tx, collNum int64, ranges []emulator.PartitionKeyRange) error {
	for _, r := range ranges {
		parents := make([]int32, 0, len(r.Parents))
		for _, p := range r.Parents {
			n, err := strconv.ParseInt(p, 10, 32)
			if err != nil {
				return fmt.Errorf("partition key range parent %q: %w", p, err)
			}
			parents = append(parents, int32(n))
		}
		id, err := strconv.ParseInt(r.ID, 10, 32)
		if err != nil {
			return fmt.Errorf("partition key range id %q: %w", r.ID, err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO cosmos.partition_key_ranges (coll_num, id, min_inclusive, max_exclusive, parents, status, lsn, rid_prefix, ts)
VALUES ($1, $2, $3, $4, $5, 'online', (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM cosmos.lsn_seq), $6, $7)`,
			collNum, id, r.MinInclusive, r.MaxExclusive, parents, r.RIDPrefix, r.TS); err != nil {
			return err
		}
	}
	return nil
}

const lookupContainer = `SELECT ` + containerCols + `
FROM cosmos.containers c JOIN cosmos.databases d ON d.num = c.db_num
WHERE (d.id = $1 OR d.rid = $1) AND (c.id = $2 OR c.rid = $2)
ORDER BY (d.id = $1) DESC, (c.id = $2) DESC LIMIT 1`

// itemsTableDDL creates a container's items table. Its primary key serves
// point operations; the unique index on seq (read feeds in creation order)
// and the expiry indexes, which exist only while the container's TTL is on,
// come from expiryIndexesDDL. The table's fillfactor leaves room on each page so that
// replacing a document is usually a HOT update (no index touched). jsonb cannot hold U+0000, which JSON strings may contain:
// the query column doc gets U+FFFD instead (the body keeps the original).
// epk is the item's effective partition key, written by every write (see
// epk.go); "C" makes its order the ordinal order of EPK strings.
func itemsTableDDL(n int64) string {
	t := itemsTable(n)
	return `CREATE TABLE ` + t + ` (
    pk   text COLLATE "C" NOT NULL,
    id   text COLLATE "C" NOT NULL,
    seq  bigint NOT NULL,
    body text NOT NULL,
    doc  jsonb GENERATED ALWAYS AS (CASE WHEN strpos(body, '\u0000') = 0 THEN body::jsonb
        ELSE regexp_replace(body, '(?<!\\)((?:\\\\)*)\\u0000', '\1\\ufffd', 'g')::jsonb END) STORED,
    ts   bigint NOT NULL,
    ttl  integer,
    exp  bigint GENERATED ALWAYS AS (CASE WHEN ttl = -1 THEN 9223372036854775807 ELSE ts + ttl END) STORED,
    etag text NOT NULL,
    lsn  bigint NOT NULL,
    epk  text COLLATE "C" NOT NULL,
    PRIMARY KEY (pk, id)
) WITH (fillfactor = 90);`
}

// expiryIndexesDDL returns the DDL that sets up a container's unique index
// on seq and its expiry indexes for its TTL being on or off (see
// expiry.go). With TTL on: items without their own ttl expire by _ts alone
// (index on ts), items with their own ttl by the stored expiry time exp;
// (pk, ts) serves the live items of one logical partition; and the unique
// seq index carries (ts, ttl, exp) as included columns (seqlive), so that
// the read feed of the whole container steps over expired rows in an
// index-only scan (feedSQL). With TTL off the seq index is plain and the
// others are gone, because indexing ts makes every document write touch an
// index (and a replace no HOT update), which containers without TTL need
// not pay for. Either way exactly one unique index on seq exists.
func expiryIndexesDDL(n int64, on bool) string {
	t := itemsTable(n)
	name := "items_" + strconv.FormatInt(n, 10)
	if !on {
		return `CREATE UNIQUE INDEX IF NOT EXISTS ` + name + `_seq_idx ON ` + t + ` (seq);
DROP INDEX IF EXISTS cosmos.` + name + `_seqlive_expiry; DROP INDEX IF EXISTS cosmos.` + name + `_ts_expiry; DROP INDEX IF EXISTS cosmos.` + name + `_pkts_expiry; DROP INDEX IF EXISTS cosmos.` + name + `_exp_expiry;`
	}
	return `CREATE UNIQUE INDEX IF NOT EXISTS ` + name + `_seqlive_expiry ON ` + t + ` (seq) INCLUDE (ts, ttl, exp);
DROP INDEX IF EXISTS cosmos.` + name + `_seq_idx;
CREATE INDEX IF NOT EXISTS ` + name + `_ts_expiry ON ` + t + ` (ts) WHERE ttl IS NULL;
CREATE INDEX IF NOT EXISTS ` + name + `_pkts_expiry ON ` + t + ` (pk, ts) WHERE ttl IS NULL;
CREATE INDEX IF NOT EXISTS ` + name + `_exp_expiry ON ` + t + ` (exp) WHERE ttl IS NOT NULL;`
}

// CreateContainer implements emulator.Store.
func (s *Store) CreateContainer(ctx context.Context, p emulator.CreateContainerParams) (emulator.Container, error) {
	def := p.Definition
	if def == nil {
		def, _ = emulator.ParseContainerDefinition(p.Properties)
	}
	var c emulator.Container
	err := s.metaTx(ctx, func(tx pgx.Tx) error {
		d, err := scanDatabase(tx.QueryRow(ctx, lookupDatabase+` FOR SHARE`, p.DatabaseRef))
		if err != nil {
			return err
		}
		num, claimed, err := s.claimSpare(ctx, tx)
		if err != nil {
			return err
		}
		if !claimed {
			if err := tx.QueryRow(ctx, `SELECT nextval('cosmos.resource_num_seq')`).Scan(&num); err != nil {
				return err
			}
		}
		pkDef, _ := json.Marshal(p.PartitionKey)
		rid := emulator.ContainerRID(d.Num, num)
		tag, err := tx.Exec(ctx, `INSERT INTO cosmos.containers (num, db_num, id, rid, props, pk_def, default_ttl, ts, etag)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (db_num, id) DO NOTHING`,
			num, d.Num, p.ID, rid, string(p.Properties), pkDef, p.DefaultTTL, p.TS, p.ETag)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return emulator.ErrConflict
		}
		// A claimed spare is the table newItemsTableDDL makes; what
		// depends on the container's properties is added here.
		ddl, err := compositeIndexesDDL(num, def, false)
		if err != nil {
			return err
		}
		ddl += uniqueKeyIndexesDDL(num, def)
		ddl += fullTextIndexesDDL(num, def, false)
		if p.DefaultTTL != nil {
			ddl = expiryIndexesDDL(num, true) + "\n" + ddl
		}
		if !claimed {
			ddl = newItemsTableDDL(num) + "\n" + ddl
		}
		if ddl != "" {
			if _, err := tx.Exec(ctx, ddl); err != nil {
				return err
			}
		}
		ranges := p.Ranges
		if len(ranges) == 0 {
			ranges = emulator.InitialRanges(p.PartitionKey, 1, p.TS, 0)
		}
		if _, err := tx.Exec(ctx, `UPDATE cosmos.containers SET next_range_id = $2 WHERE num = $1`, num, len(ranges)); err != nil {
			return err
		}
		if err := insertRanges(ctx, tx, num, ranges); err != nil {
			return err
		}
		c = emulator.Container{Num: num, DatabaseNum: d.Num, DatabaseID: d.ID, DatabaseRID: d.RID, ID: p.ID, RID: rid,
			Properties: p.Properties, Def: def, PartitionKey: p.PartitionKey, DefaultTTL: p.DefaultTTL, TS: p.TS, ETag: p.ETag,
			Ranges: ranges, RangesVersion: 1, NextRangeID: len(ranges)}
		offer := p.Offer
		if offer == nil && p.DefaultOffer != nil {
			var shared bool
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM cosmos.offers WHERE db_num = $1 AND coll_num IS NULL)`, d.Num).Scan(&shared); err != nil {
				return err
			}
			if !shared {
				offer = p.DefaultOffer
			}
		}
		if offer != nil {
			return insertOffer(ctx, tx, nil, &num, rid, c.Self(), offer.Content, p.TS, p.ETag)
		}
		return nil
	})
	if err == nil {
		poke(s.tables.refill)
	}
	return c, classify("create container", err)
}

// GetContainer implements emulator.Store.
// Lookups are served from the container cache (see cache.go) when possible.
func (s *Store) GetContainer(ctx context.Context, dbRef, collRef string) (emulator.Container, error) {
	c, ok, gen := s.cache.get(dbRef, collRef)
	if ok {
		return c, nil
	}
	c, err := scanContainer(s.pool.QueryRow(ctx, lookupContainer, dbRef, collRef))
	if err != nil {
		return c, classify("get container", err)
	}
	s.cache.put(dbRef, collRef, c, gen)
	return c, nil
}

// ListContainers implements emulator.Store.
func (s *Store) ListContainers(ctx context.Context, dbRef string) (emulator.Database, []emulator.Container, error) {
	d, err := s.GetDatabase(ctx, dbRef)
	if err != nil {
		return d, nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT `+containerCols+` FROM cosmos.containers c JOIN cosmos.databases d ON d.num = c.db_num WHERE c.db_num = $1 ORDER BY c.created`, d.Num)
	if err != nil {
		return d, nil, classify("list containers", err)
	}
	cs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (emulator.Container, error) { return scanContainer(r) })
	return d, cs, classify("list containers", err)
}

// ReplaceContainer implements emulator.Store.
func (s *Store) ReplaceContainer(ctx context.Context, p emulator.ReplaceContainerParams) (emulator.Container, error) {
	def := p.Definition
	if def == nil {
		def, _ = emulator.ParseContainerDefinition(p.Properties)
	}
	var c emulator.Container
	newIndexes := false // the composite or full-text indexes changed: analyze once committed
	err := s.metaTx(ctx, func(tx pgx.Tx) error {
		cur, err := scanContainer(tx.QueryRow(ctx, lookupContainer+` FOR UPDATE OF c`, p.DatabaseRef, p.CollRef))
		if err != nil {
			return err
		}
		if p.Check != nil {
			if err := p.Check(cur); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE cosmos.containers SET props = $2, default_ttl = $3, ts = $4, etag = $5 WHERE num = $1`,
			cur.Num, string(p.Properties), p.DefaultTTL, p.TS, p.ETag); err != nil {
			return err
		}
		if !sameComposites(cur.Def, def) {
			composites, err := compositeIndexesDDL(cur.Num, def, true)
			if err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, composites); err != nil {
				return err
			}
			newIndexes = true
		}
		if !sameFullTextIndexes(cur.Def, def) {
			if _, err := tx.Exec(ctx, fullTextIndexesDDL(cur.Num, def, true)); err != nil {
				return err
			}
			newIndexes = true
		}
		if (cur.DefaultTTL == nil) != (p.DefaultTTL == nil) {
			if _, err := tx.Exec(ctx, expiryIndexesDDL(cur.Num, p.DefaultTTL != nil)); err != nil {
				return err
			}
		}
		c = cur
		c.Properties, c.Def, c.DefaultTTL, c.TS, c.ETag = p.Properties, def, p.DefaultTTL, p.TS, p.ETag
		return s.notifyMetadataChanged(ctx, tx)
	})
	s.cache.clear()
	if err == nil && newIndexes {
		s.analyzeNewIndexes(ctx, c.Num)
	}
	return c, classify("replace container", err)
}

// DeleteContainer implements emulator.Store. The items table is renamed at
// once (taking its exclusive lock, so operations in flight on it finish
// first and later ones get 404) and dropped in the background, with the
// change log (see tablepool.go).
func (s *Store) DeleteContainer(ctx context.Context, dbRef, collRef string) error {
	err := s.metaTx(ctx, func(tx pgx.Tx) error {
		cur, err := scanContainer(tx.QueryRow(ctx, lookupContainer+` FOR UPDATE OF c`, dbRef, collRef))
		if err != nil {
			return err
		}
		if err := retireTables(ctx, tx, []int64{cur.Num}); err != nil {
			return err
		}
		if _, err = tx.Exec(ctx, `DELETE FROM cosmos.containers WHERE num = $1`, cur.Num); err != nil {
			return err
		}
		return s.notifyMetadataChanged(ctx, tx)
	})
	s.cache.clear()
	if err == nil {
		poke(s.tables.drop)
	}
	return classify("delete container", err)
}

// ---- offers

const offerCols = `num, rid, resource_rid, resource_self, content, ts, etag`

func scanOffer(row pgx.Row) (emulator.Offer, error) {
	var o emulator.Offer
	var content string
	err := row.Scan(&o.Num, &o.RID, &o.ResourceRID, &o.Resource, &content, &o.TS, &o.ETag)
	o.Content = []byte(content)
	return o, err
}

// ListOffers implements emulator.Store.
func (s *Store) ListOffers(ctx context.Context) ([]emulator.Offer, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+offerCols+` FROM cosmos.offers ORDER BY num`)
	if err != nil {
		return nil, classify("list offers", err)
	}
	os, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (emulator.Offer, error) { return scanOffer(r) })
	return os, classify("list offers", err)
}

// GetOffer implements emulator.Store.
func (s *Store) GetOffer(ctx context.Context, rid string) (emulator.Offer, error) {
	o, err := scanOffer(s.pool.QueryRow(ctx, `SELECT `+offerCols+` FROM cosmos.offers WHERE rid = $1`, rid))
	return o, classify("get offer", err)
}

// ReplaceOffer implements emulator.Store.
func (s *Store) ReplaceOffer(ctx context.Context, p emulator.ReplaceOfferParams) (emulator.Offer, error) {
	o, err := scanOffer(s.pool.QueryRow(ctx, `UPDATE cosmos.offers SET content = $2, ts = $3, etag = $4 WHERE rid = $1 RETURNING `+offerCols,
		p.RID, string(p.Content), p.TS, p.ETag))
	return o, classify("replace offer", err)
}
