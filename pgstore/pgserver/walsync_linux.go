package pgserver

// walSyncMethod is the managed server's wal_sync_method. On Linux it is
// open_datasync (PostgreSQL's Linux default is fdatasync): a commit's WAL
// is written with O_DSYNC, one write that returns once the WAL is on disk,
// instead of a write and then an fdatasync. Just as durable (the data is
// on stable storage when the commit is acknowledged), and pg_test_fsync on
// the development machine measured one synced 8 kB write at 0.16-1.75 ms
// with it against 0.30-2.65 ms with fdatasync: a test suite's item creates,
// each its own commit, wait on exactly that. With wal_level replica (the
// default) PostgreSQL does not add O_DIRECT, so file systems without
// O_DIRECT (tmpfs) still work. README "Durability" gives the figures.
const walSyncMethod = "open_datasync"
