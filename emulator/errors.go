package emulator

import (
	"errors"
	"fmt"
)

// Kind classifies an error the way the Cosmos DB REST protocol does. Package
// wire maps each Kind to exactly one HTTP status code.
type Kind int

// The error kinds. KindInternal is the zero value so that an unclassified
// error is never mistaken for a client error.
const (
	KindInternal           Kind = iota // 500: unexpected failure
	KindBadRequest                     // 400
	KindUnauthorized                   // 401
	KindForbidden                      // 403
	KindNotFound                       // 404
	KindMethodNotAllowed               // 405
	KindConflict                       // 409
	KindGone                           // 410
	KindPreconditionFailed             // 412
	KindTooLarge                       // 413
	KindUnavailable                    // 503
	KindRequestTimeout                 // 408: a script ran out of time
	KindTooManyRequests                // 429: over the request-unit budget
)

// String returns the Cosmos error code for the kind ("BadRequest", ...), the
// value of the "code" member of error bodies.
func (k Kind) String() string {
	switch k {
	case KindBadRequest:
		return "BadRequest"
	case KindUnauthorized:
		return "Unauthorized"
	case KindForbidden:
		return "Forbidden"
	case KindNotFound:
		return "NotFound"
	case KindMethodNotAllowed:
		return "MethodNotAllowed"
	case KindConflict:
		return "Conflict"
	case KindGone:
		return "Gone"
	case KindPreconditionFailed:
		return "PreconditionFailed"
	case KindTooLarge:
		return "RequestEntityTooLarge"
	case KindUnavailable:
		return "ServiceUnavailable"
	case KindRequestTimeout:
		return "RequestTimeout"
	case KindTooManyRequests:
		return "TooManyRequests"
	default:
		return "InternalServerError"
	}
}

// Sub-status codes (x-ms-substatus) the emulator emits.
const (
	SubStatusNone                  = 0
	SubStatusPartitionKeyMismatch  = 1001
	SubStatusOwnerResourceNotFound = 1003
	SubStatusCrossPartitionQuery   = 1004
	SubStatusPartitionKeyRangeGone = 1002
	// SubStatusResponseSizeExceeded goes with a 413 for a response that
	// would pass the response size limit (ResponseSizeExceeded).
	SubStatusResponseSizeExceeded = 3402
	// SubStatusRUBudgetExceeded goes with a 429 for a request over the
	// request units per second its partition key range has
	// (RUBudgetExceeded).
	SubStatusRUBudgetExceeded = 3200
)

// Common messages, worded as the real service words them (reference §3.3).
const (
	MsgItemNotFound     = "Entity with the specified id does not exist in the system."
	MsgResourceNotFound = "Resource Not Found. Learn more: https://aka.ms/cosmosdb-tsg-not-found"
	MsgConflict         = "Entity with the specified id already exists in the system."
	MsgPrecondition     = "One of the specified pre-condition is not met."
	MsgInvalidPayload   = "The request payload is invalid. Ensure to provide a valid request payload."
	MsgPKMismatch       = "PartitionKey extracted from document doesn't match the one specified in the header. Learn more: https://aka.ms/CosmosDB/sql/errors/wrong-pk-value"
	MsgPKTooFew         = "The partition key supplied in x-ms-partitionkey header has fewer components than defined in the the collection."
	// MsgBatchPKIncomplete is the service's 400 for a transactional batch
	// whose partition key header has fewer components than the container's
	// definition (a prefix of a hierarchical key): the Python SDK's
	// test_transactional_batch.py test_batch_subpartition expects it.
	MsgBatchPKIncomplete = "Partition key provided either doesn't correspond to definition in the collection or doesn't match partition key field values specified in the document."
	// MsgTooLarge is the service's 413 for a body over the request size
	// limit, in its classic envelope (reference §3.1, recorded: a 3 MiB
	// document); the wire layer appends the ActivityId line the service
	// ends such messages with.
	MsgTooLarge = `Message: {"Errors":["Request size is too large"]}`
	// MsgTooManyRequests is the service's 429 for a request over the
	// provisioned throughput.
	MsgTooManyRequests = "Request rate is large. More Request Units may be needed, so no changes were made. Please retry this request later. Learn more: http://aka.ms/cosmosdb-error-429"
)

// Error is a classified emulator error. Err, when set, is the underlying
// cause; it is logged but never shown to clients.
type Error struct {
	Kind      Kind
	SubStatus int
	Message   string
	// AdditionalErrorInfo, when non-empty, is sent as the additionalErrorInfo
	// member of the error body (the query plan of a 400/1004).
	AdditionalErrorInfo string
	Err                 error
}

// Error implements error.
func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Kind, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Kind, e.Message)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error of the given kind with a formatted message.
func Errorf(kind Kind, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...)}
}

// BadRequest returns a 400 error with the given message.
func BadRequest(format string, args ...any) *Error {
	return Errorf(KindBadRequest, format, args...)
}

// WithSub returns a copy of e with the sub-status set.
func (e *Error) WithSub(sub int) *Error {
	c := *e
	c.SubStatus = sub
	return &c
}

// KindOf returns the Kind of err: the Kind of the first *Error in its chain,
// or KindInternal.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindInternal
}

// IsKind reports whether err is an *Error of kind k.
func IsKind(err error, k Kind) bool { return err != nil && KindOf(err) == k }

// Pre-built errors for the common cases. They carry no cause; wrap them with
// fmt.Errorf("...: %w", ErrX) freely, KindOf still finds them.
var (
	ErrItemNotFound     = &Error{Kind: KindNotFound, Message: MsgItemNotFound}
	ErrResourceNotFound = &Error{Kind: KindNotFound, Message: MsgResourceNotFound}
	ErrOwnerNotFound    = &Error{Kind: KindNotFound, SubStatus: SubStatusOwnerResourceNotFound, Message: MsgResourceNotFound}
	ErrConflict         = &Error{Kind: KindConflict, Message: MsgConflict}
	ErrPrecondition     = &Error{Kind: KindPreconditionFailed, Message: MsgPrecondition}
	ErrInvalidPayload   = &Error{Kind: KindBadRequest, Message: MsgInvalidPayload}
	ErrPKMismatch       = &Error{Kind: KindBadRequest, SubStatus: SubStatusPartitionKeyMismatch, Message: MsgPKMismatch}
	ErrPKTooFew         = &Error{Kind: KindBadRequest, SubStatus: SubStatusPartitionKeyMismatch, Message: MsgPKTooFew}
	ErrTooLarge         = &Error{Kind: KindTooLarge, Message: MsgTooLarge}
)
