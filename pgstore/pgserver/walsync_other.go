//go:build unix && !linux

package pgserver

// walSyncMethod is the managed server's wal_sync_method: empty, so
// PostgreSQL's default for the platform (see walsync_linux.go for Linux).
const walSyncMethod = ""
