package emulator

import "context"

// ContainerUsage is what a container's storage holds, as a container read
// with x-ms-documentdb-populatequotainfo reports it (x-ms-resource-usage).
type ContainerUsage struct {
	// Documents counts the live items. A store may estimate it past a
	// bound on what it reads (Store.ContainerUsage); it is exact below that.
	Documents int64
	// DocumentsBytes is the storage the documents take; CollectionBytes
	// adds the container's indexes.
	DocumentsBytes, CollectionBytes int64
}

// ContainerUsage returns container c's usage now (see ContainerUsage and
// Store.ContainerUsage).
func (s *Service) ContainerUsage(ctx context.Context, c Container) (ContainerUsage, error) {
	return s.store.ContainerUsage(ctx, c, s.expiry(c))
}
