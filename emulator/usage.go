package emulator

import "context"

// ContainerUsage is what a container's storage holds, as a container read
// with x-ms-documentdb-populatequotainfo reports it (x-ms-resource-usage).
type ContainerUsage struct {
	// Documents counts the live items. A store may estimate it past a
	// bound on what it reads (UsageStore); it is exact below that.
	Documents int64
	// DocumentsBytes is the storage the documents take; CollectionBytes
	// adds the container's indexes.
	DocumentsBytes, CollectionBytes int64
}

// UsageStore is implemented by stores that can report a container's usage
// at a cost that does not grow with the container (pgstore). The Service
// counts through Store.CountItems, a full read, when the store is not one.
type UsageStore interface {
	// ContainerUsage returns container c's usage, its items judged live
	// under e.
	ContainerUsage(ctx context.Context, c Container, e Expiry) (ContainerUsage, error)
}

// ContainerUsage returns container c's usage now (see ContainerUsage and
// UsageStore).
func (s *Service) ContainerUsage(ctx context.Context, c Container) (ContainerUsage, error) {
	if us, ok := s.store.(UsageStore); ok {
		return us.ContainerUsage(ctx, c, s.expiry(c))
	}
	st, err := s.store.CountItems(ctx, c, s.expiry(c))
	return ContainerUsage{Documents: st.LiveItems, DocumentsBytes: st.LiveBytes, CollectionBytes: st.LiveBytes}, err
}
