package rntbd

// Resource types of a request (RntbdConstants.RntbdResourceType).
const (
	ResourceConnection      uint16 = 0x0000
	ResourceDatabase        uint16 = 0x0001
	ResourceCollection      uint16 = 0x0002
	ResourceDocument        uint16 = 0x0003
	ResourceStoredProcedure uint16 = 0x0007
)

// Operation types of a request (RntbdConstants.RntbdOperationType).
const (
	OpConnection        uint16 = 0x0000
	OpCreate            uint16 = 0x0001
	OpPatch             uint16 = 0x0002
	OpRead              uint16 = 0x0003
	OpReadFeed          uint16 = 0x0004
	OpDelete            uint16 = 0x0005
	OpReplace           uint16 = 0x0006
	OpExecuteJavaScript uint16 = 0x0008
	OpSQLQuery          uint16 = 0x0009
	OpQuery             uint16 = 0x000F
	OpHead              uint16 = 0x0011
	OpHeadFeed          uint16 = 0x0012
	OpUpsert            uint16 = 0x0013
	OpBatch             uint16 = 0x0025
)

// Request token ids (RntbdConstants.RntbdRequestHeader); the server reads
// each by its wire type.
const (
	ReqResourceID                  uint16 = 0x0000
	ReqAuthorizationToken          uint16 = 0x0001
	ReqPayloadPresent              uint16 = 0x0002
	ReqDate                        uint16 = 0x0003
	ReqPageSize                    uint16 = 0x0004
	ReqSessionToken                uint16 = 0x0005
	ReqContinuationToken           uint16 = 0x0006
	ReqIndexingDirective           uint16 = 0x0007
	ReqMatch                       uint16 = 0x0008
	ReqPreTriggerInclude           uint16 = 0x0009
	ReqPostTriggerInclude          uint16 = 0x000A
	ReqConsistencyLevel            uint16 = 0x0010
	ReqReplicaPath                 uint16 = 0x0013
	ReqDatabaseName                uint16 = 0x0015
	ReqCollectionName              uint16 = 0x0016
	ReqDocumentName                uint16 = 0x0017
	ReqStoredProcedureName         uint16 = 0x001B
	ReqEnableLogging               uint16 = 0x003E
	ReqPartitionKey                uint16 = 0x002B
	ReqPartitionKeyRange           uint16 = 0x002C
	ReqCollectionRid               uint16 = 0x0035
	ReqPopulateQueryMetrics        uint16 = 0x0042
	ReqStartEpk                    uint16 = 0x0062
	ReqEndEpk                      uint16 = 0x0063
	ReqReadFeedKeyType             uint16 = 0x0064
	ReqAIM                         uint16 = 0x003F
	ReqIfModifiedSince             uint16 = 0x0047
	ReqChangeFeedWireFormatVersion uint16 = 0x00B2
	ReqTransportRequestID          uint16 = 0x004D
	ReqIsBatchAtomic               uint16 = 0x0073
	ReqShouldBatchContinueOnError  uint16 = 0x0074
	ReqReturnPreference            uint16 = 0x0082
)

// Context request token ids (RntbdConstants.RntbdContextRequestHeader).
const (
	CtxProtocolVersion uint16 = 0x0000
	CtxClientVersion   uint16 = 0x0001
	CtxUserAgent       uint16 = 0x0002
)

// Context response token ids (RntbdContext.Headers).
const (
	CtxRespProtocolVersion        uint16 = 0x0000
	CtxRespClientVersion          uint16 = 0x0001
	CtxRespServerAgent            uint16 = 0x0002
	CtxRespServerVersion          uint16 = 0x0003
	CtxRespIdleTimeoutSeconds     uint16 = 0x0004
	CtxRespUnauthenticatedTimeout uint16 = 0x0005
)

// Response token ids (RntbdConstants.RntbdResponseHeader).
const (
	RespPayloadPresent        uint16 = 0x0000
	RespContinuationToken     uint16 = 0x0003
	RespETag                  uint16 = 0x0004
	RespRetryAfterMs          uint16 = 0x000C
	RespLSN                   uint16 = 0x0013
	RespItemCount             uint16 = 0x0014
	RespRequestCharge         uint16 = 0x0015
	RespOwnerFullName         uint16 = 0x0017
	RespOwnerID               uint16 = 0x0018
	RespQuorumAckedLSN        uint16 = 0x001A
	RespSubStatus             uint16 = 0x001C
	RespCurrentWriteQuorum    uint16 = 0x001E
	RespCurrentReplicaSetSize uint16 = 0x001F
	RespPartitionKeyRangeID   uint16 = 0x0021
	RespLogResults            uint16 = 0x0025
	RespQueryMetrics          uint16 = 0x0028
	RespGlobalCommittedLSN    uint16 = 0x0029
	RespNumberOfReadRegions   uint16 = 0x0030
	RespItemLSN               uint16 = 0x0032
	RespTransportRequestID    uint16 = 0x0035
	RespServerDateTimeUTC     uint16 = 0x0039
	RespLocalLSN              uint16 = 0x003A
	RespQuorumAckedLocalLSN   uint16 = 0x003B
	RespItemLocalLSN          uint16 = 0x003C
	RespSessionToken          uint16 = 0x003E
)

// ResponseTokenTypes are the declared types of the response tokens this
// package may send. The Java SDK decodes a token it knows by its declared
// type, whatever the type byte says (RntbdTokenStream.decode), so a token
// of another type would desynchronize the rest of the frame: EncodeResponse
// refuses one.
var ResponseTokenTypes = map[uint16]TokenType{
	RespPayloadPresent:        TypeByte,
	RespContinuationToken:     TypeString,
	RespETag:                  TypeString,
	RespRetryAfterMs:          TypeULong,
	RespLSN:                   TypeLongLong,
	RespItemCount:             TypeULong,
	RespRequestCharge:         TypeDouble,
	RespOwnerFullName:         TypeString,
	RespOwnerID:               TypeString,
	RespQuorumAckedLSN:        TypeLongLong,
	RespSubStatus:             TypeULong,
	RespCurrentWriteQuorum:    TypeULong,
	RespCurrentReplicaSetSize: TypeULong,
	RespPartitionKeyRangeID:   TypeString,
	RespLogResults:            TypeString,
	RespQueryMetrics:          TypeString,
	RespGlobalCommittedLSN:    TypeLongLong,
	RespNumberOfReadRegions:   TypeULong,
	RespItemLSN:               TypeLongLong,
	RespTransportRequestID:    TypeULong,
	RespServerDateTimeUTC:     TypeSmallString,
	RespLocalLSN:              TypeLongLong,
	RespQuorumAckedLocalLSN:   TypeLongLong,
	RespItemLocalLSN:          TypeLongLong,
	RespSessionToken:          TypeString,
}

// contextResponseTokenTypes are the declared types of the context
// response's tokens (RntbdContext.Headers).
var contextResponseTokenTypes = map[uint16]TokenType{
	CtxRespProtocolVersion:        TypeULong,
	CtxRespClientVersion:          TypeSmallString,
	CtxRespServerAgent:            TypeSmallString,
	CtxRespServerVersion:          TypeSmallString,
	CtxRespIdleTimeoutSeconds:     TypeULong,
	CtxRespUnauthenticatedTimeout: TypeULong,
}
