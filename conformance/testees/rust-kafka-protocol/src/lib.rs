//! The adapter between Kafka frames and the `kafka-protocol` crate's messages (0.18.0):
//! bytes -> [`Message`] (the crate's `RequestHeader`/`ResponseHeader` and
//! `RequestKind`/`ResponseKind`) -> bytes, for every API key the crate knows, through the
//! crate's own entry points and nothing else. Used by the conformance testee (main.rs)
//! and meant for a peer benchmark (bench/peers/rust-kafka-protocol) to depend on by path
//! with `default-features = false`.
//!
//! What is the crate's and what is ours (README.md, "How it reaches kafka-protocol"):
//! * The crate reads no frame: the int32 size prefix is the caller's (a codec such as
//!   shotover's splits the stream by it). [`split_frame`] does that part.
//! * Requests: `protocol::decode_request_header_from_buffer` (it reads the API key and
//!   version from the header and picks the header version itself), then
//!   `RequestKind::decode(api_key, buf, header.request_api_version)`.
//! * Responses: the caller knows the API and version (from its request):
//!   `ResponseHeader::decode(buf, api_key.response_header_version(version))`, then
//!   `ResponseKind::decode(api_key, buf, version)`.
//! * Bytes after the body are left in the buffer: the crate never looks at them.
//!   [`Message::trailing`] counts them; the caller decides.
//! * Panics (and allocation failures, which abort) are not caught here.

use bytes::{BufMut, Bytes, BytesMut};
use kafka_protocol::messages::*;
use kafka_protocol::protocol::{
    decode_request_header_from_buffer, Decodable, Encodable, HeaderVersion, Message as _,
    VersionRange,
};

pub use kafka_protocol;

/// The crate's version, as pinned in Cargo.toml.
pub const KAFKA_PROTOCOL_VERSION: &str = "0.18.0";

/// Request or response.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Request,
    Response,
}

impl Direction {
    pub fn name(self) -> &'static str {
        match self {
            Direction::Request => "request",
            Direction::Response => "response",
        }
    }
}

/// The crate's `ApiKey` for a key number, `None` for a key it does not know.
pub fn api_key(key: i16) -> Option<ApiKey> {
    ApiKey::try_from(key).ok()
}

// Every API key of the crate with its request type (the response type is
// `<Request as kafka_protocol::protocol::Request>::Response`). The matches below are
// exhaustive over `ApiKey`, so a crate with another set of keys does not compile.
macro_rules! per_api {
    ($m:ident, $($args:tt)*) => {
        $m!($($args)* ;
            Produce => ProduceRequest,
            Fetch => FetchRequest,
            ListOffsets => ListOffsetsRequest,
            Metadata => MetadataRequest,
            OffsetCommit => OffsetCommitRequest,
            OffsetFetch => OffsetFetchRequest,
            FindCoordinator => FindCoordinatorRequest,
            JoinGroup => JoinGroupRequest,
            Heartbeat => HeartbeatRequest,
            LeaveGroup => LeaveGroupRequest,
            SyncGroup => SyncGroupRequest,
            DescribeGroups => DescribeGroupsRequest,
            ListGroups => ListGroupsRequest,
            SaslHandshake => SaslHandshakeRequest,
            ApiVersions => ApiVersionsRequest,
            CreateTopics => CreateTopicsRequest,
            DeleteTopics => DeleteTopicsRequest,
            DeleteRecords => DeleteRecordsRequest,
            InitProducerId => InitProducerIdRequest,
            OffsetForLeaderEpoch => OffsetForLeaderEpochRequest,
            AddPartitionsToTxn => AddPartitionsToTxnRequest,
            AddOffsetsToTxn => AddOffsetsToTxnRequest,
            EndTxn => EndTxnRequest,
            WriteTxnMarkers => WriteTxnMarkersRequest,
            TxnOffsetCommit => TxnOffsetCommitRequest,
            DescribeAcls => DescribeAclsRequest,
            CreateAcls => CreateAclsRequest,
            DeleteAcls => DeleteAclsRequest,
            DescribeConfigs => DescribeConfigsRequest,
            AlterConfigs => AlterConfigsRequest,
            AlterReplicaLogDirs => AlterReplicaLogDirsRequest,
            DescribeLogDirs => DescribeLogDirsRequest,
            SaslAuthenticate => SaslAuthenticateRequest,
            CreatePartitions => CreatePartitionsRequest,
            CreateDelegationToken => CreateDelegationTokenRequest,
            RenewDelegationToken => RenewDelegationTokenRequest,
            ExpireDelegationToken => ExpireDelegationTokenRequest,
            DescribeDelegationToken => DescribeDelegationTokenRequest,
            DeleteGroups => DeleteGroupsRequest,
            ElectLeaders => ElectLeadersRequest,
            IncrementalAlterConfigs => IncrementalAlterConfigsRequest,
            AlterPartitionReassignments => AlterPartitionReassignmentsRequest,
            ListPartitionReassignments => ListPartitionReassignmentsRequest,
            OffsetDelete => OffsetDeleteRequest,
            DescribeClientQuotas => DescribeClientQuotasRequest,
            AlterClientQuotas => AlterClientQuotasRequest,
            DescribeUserScramCredentials => DescribeUserScramCredentialsRequest,
            AlterUserScramCredentials => AlterUserScramCredentialsRequest,
            Vote => VoteRequest,
            BeginQuorumEpoch => BeginQuorumEpochRequest,
            EndQuorumEpoch => EndQuorumEpochRequest,
            DescribeQuorum => DescribeQuorumRequest,
            AlterPartition => AlterPartitionRequest,
            UpdateFeatures => UpdateFeaturesRequest,
            Envelope => EnvelopeRequest,
            FetchSnapshot => FetchSnapshotRequest,
            DescribeCluster => DescribeClusterRequest,
            DescribeProducers => DescribeProducersRequest,
            BrokerRegistration => BrokerRegistrationRequest,
            BrokerHeartbeat => BrokerHeartbeatRequest,
            UnregisterBroker => UnregisterBrokerRequest,
            DescribeTransactions => DescribeTransactionsRequest,
            ListTransactions => ListTransactionsRequest,
            AllocateProducerIds => AllocateProducerIdsRequest,
            ConsumerGroupHeartbeat => ConsumerGroupHeartbeatRequest,
            ConsumerGroupDescribe => ConsumerGroupDescribeRequest,
            ControllerRegistration => ControllerRegistrationRequest,
            GetTelemetrySubscriptions => GetTelemetrySubscriptionsRequest,
            PushTelemetry => PushTelemetryRequest,
            AssignReplicasToDirs => AssignReplicasToDirsRequest,
            ListConfigResources => ListConfigResourcesRequest,
            DescribeTopicPartitions => DescribeTopicPartitionsRequest,
            ShareGroupHeartbeat => ShareGroupHeartbeatRequest,
            ShareGroupDescribe => ShareGroupDescribeRequest,
            ShareFetch => ShareFetchRequest,
            ShareAcknowledge => ShareAcknowledgeRequest,
            AddRaftVoter => AddRaftVoterRequest,
            RemoveRaftVoter => RemoveRaftVoterRequest,
            UpdateRaftVoter => UpdateRaftVoterRequest,
            InitializeShareGroupState => InitializeShareGroupStateRequest,
            ReadShareGroupState => ReadShareGroupStateRequest,
            WriteShareGroupState => WriteShareGroupStateRequest,
            DeleteShareGroupState => DeleteShareGroupStateRequest,
            ReadShareGroupStateSummary => ReadShareGroupStateSummaryRequest,
            DescribeShareGroupOffsets => DescribeShareGroupOffsetsRequest,
            AlterShareGroupOffsets => AlterShareGroupOffsetsRequest,
            DeleteShareGroupOffsets => DeleteShareGroupOffsetsRequest,
        )
    };
}

macro_rules! versions_match {
    ($key:expr, $dir:expr ; $($name:ident => $req:ident,)*) => {
        match $key {
            $(ApiKey::$name => match $dir {
                Direction::Request => <$req>::VERSIONS,
                Direction::Response => <<$req as kafka_protocol::protocol::Request>::Response>::VERSIONS,
            },)*
        }
    };
}

macro_rules! header_version_match {
    ($key:expr, $dir:expr, $version:expr ; $($name:ident => $req:ident,)*) => {
        match $key {
            $(ApiKey::$name => match $dir {
                Direction::Request => <$req as HeaderVersion>::header_version($version),
                Direction::Response => <<$req as kafka_protocol::protocol::Request>::Response as HeaderVersion>::header_version($version),
            },)*
        }
    };
}

/// The versions the crate's message type for (key, direction) decodes and encodes: its
/// `Message::VERSIONS`, which each generated `decode`/`encode` checks first.
/// (`ApiKey::valid_versions` says more for three requests, see README.md.)
pub fn versions(key: ApiKey, dir: Direction) -> VersionRange {
    per_api!(versions_match, key, dir)
}

/// The header version the crate's message type gives for `version` (its `HeaderVersion`).
pub fn header_version(key: ApiKey, dir: Direction, version: i16) -> i16 {
    per_api!(header_version_match, key, dir, version)
}

/// Why the crate does not implement (key, version, direction), or `None` when it does.
pub fn unsupported(key: i16, version: i16, dir: Direction) -> Option<String> {
    let Some(k) = api_key(key) else {
        return Some(format!(
            "kafka-protocol {KAFKA_PROTOCOL_VERSION} has no API key {key}"
        ));
    };
    let r = versions(k, dir);
    if version < r.min || version > r.max {
        return Some(format!(
            "kafka-protocol {KAFKA_PROTOCOL_VERSION} reads {:?} {}s v{}-v{} only",
            k,
            dir.name(),
            r.min,
            r.max
        ));
    }
    None
}

/// A header as the crate decodes it.
#[derive(Clone, Debug, PartialEq)]
pub enum Header {
    Request(RequestHeader),
    Response(ResponseHeader),
}

/// A body as the crate decodes it.
#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    Request(RequestKind),
    Response(ResponseKind),
}

/// One decoded message (a frame without its size prefix).
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    pub api_key: ApiKey,
    /// The body's version (a request's from its header).
    pub version: i16,
    /// The header version the header was read at (the crate's choice).
    pub header_version: i16,
    pub header: Header,
    pub body: Body,
    /// Bytes after the body that the crate left unread.
    pub trailing: usize,
}

/// Why a frame did not decode.
#[derive(Clone, Debug, PartialEq)]
pub enum DecodeError {
    /// The int32 size prefix disagrees with the frame (the caller's framing, not the crate).
    Frame(String),
    /// The crate refused the header (an unknown API key included).
    Header(String),
    /// The crate refused the body.
    Body(String),
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DecodeError::Frame(s) => write!(f, "frame: {s}"),
            DecodeError::Header(s) => write!(f, "header: {s}"),
            DecodeError::Body(s) => write!(f, "body: {s}"),
        }
    }
}

/// An anyhow error of the crate with its causes, on one line.
fn err_text<E: std::fmt::Display>(e: E) -> String {
    format!("{e:#}").replace('\n', " ").trim_end().to_string()
}

/// The message inside a whole frame (int32 size, then the message): what a length-prefixed
/// codec hands the crate. A size that disagrees with the frame's length is refused.
pub fn split_frame(frame: &[u8]) -> Result<Bytes, DecodeError> {
    if frame.len() < 4 {
        return Err(DecodeError::Frame(format!(
            "{} bytes: no int32 size prefix",
            frame.len()
        )));
    }
    let size = i32::from_be_bytes([frame[0], frame[1], frame[2], frame[3]]);
    if size < 0 || size as usize != frame.len() - 4 {
        return Err(DecodeError::Frame(format!(
            "size prefix {size}, but {} bytes follow it",
            frame.len() - 4
        )));
    }
    Ok(Bytes::copy_from_slice(&frame[4..]))
}

/// Decodes a request message (no size prefix) as a broker built on the crate does: the
/// header through `decode_request_header_from_buffer` (which takes the API key and version
/// from the bytes), the body through `RequestKind::decode` at the header's version.
/// May panic inside the crate (a message shorter than 4 bytes: README.md).
pub fn decode_request(mut buf: Bytes) -> Result<Message, DecodeError> {
    let header = decode_request_header_from_buffer(&mut buf)
        .map_err(|e| DecodeError::Header(err_text(e)))?;
    // decode_request_header_from_buffer succeeded, so the key is one the crate knows.
    let key = api_key(header.request_api_key)
        .ok_or_else(|| DecodeError::Header("Unknown API key".into()))?;
    let version = header.request_api_version;
    let hv = key.request_header_version(version);
    let body =
        RequestKind::decode(key, &mut buf, version).map_err(|e| DecodeError::Body(err_text(e)))?;
    Ok(Message {
        api_key: key,
        version,
        header_version: hv,
        header: Header::Request(header),
        body: Body::Request(body),
        trailing: buf.len(),
    })
}

/// Decodes a response message (no size prefix) to a request of (key, version), as a
/// client built on the crate does.
pub fn decode_response(key: ApiKey, version: i16, mut buf: Bytes) -> Result<Message, DecodeError> {
    let hv = key.response_header_version(version);
    let header =
        ResponseHeader::decode(&mut buf, hv).map_err(|e| DecodeError::Header(err_text(e)))?;
    let body =
        ResponseKind::decode(key, &mut buf, version).map_err(|e| DecodeError::Body(err_text(e)))?;
    Ok(Message {
        api_key: key,
        version,
        header_version: hv,
        header: Header::Response(header),
        body: Body::Response(body),
        trailing: buf.len(),
    })
}

/// Decodes a whole frame (size prefix included) of the given direction; for a response,
/// (key, version) name the request it answers (a request names its own).
pub fn decode_frame(
    dir: Direction,
    key: ApiKey,
    version: i16,
    frame: &[u8],
) -> Result<Message, DecodeError> {
    let buf = split_frame(frame)?;
    match dir {
        Direction::Request => decode_request(buf),
        Direction::Response => decode_response(key, version, buf),
    }
}

/// Encodes the message (header at `header_version`, body at `version`) after `out`'s
/// contents, without a size prefix.
pub fn encode_message(m: &Message, out: &mut BytesMut) -> Result<(), String> {
    match &m.header {
        Header::Request(h) => h.encode(out, m.header_version),
        Header::Response(h) => h.encode(out, m.header_version),
    }
    .map_err(|e| format!("header: {}", err_text(e)))?;
    match &m.body {
        Body::Request(b) => b.encode(out, m.version),
        Body::Response(b) => b.encode(out, m.version),
    }
    .map_err(|e| format!("body: {}", err_text(e)))
}

/// Encodes the message as a whole frame: int32 size, header, body.
pub fn encode_frame(m: &Message) -> Result<Vec<u8>, String> {
    let mut out = BytesMut::with_capacity(256);
    out.put_i32(0);
    encode_message(m, &mut out)?;
    let size = out.len() - 4;
    if size > i32::MAX as usize {
        return Err(format!("{size} bytes: too long for a frame"));
    }
    out[..4].copy_from_slice(&(size as i32).to_be_bytes());
    Ok(out.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_versions_request_roundtrip() {
        // ApiVersions v3 request, header v2: key 18, version 3, correlation 7, client "c",
        // no tags; body: software name "n", version "1", no tags.
        let frame: Vec<u8> = vec![
            0, 0, 0, 16, 0, 18, 0, 3, 0, 0, 0, 7, 0, 1, b'c', 0, 2, b'n', 2, b'1', 0,
        ];
        let mut f = frame.clone();
        f[3] = (frame.len() - 4) as u8;
        let m = decode_frame(Direction::Request, ApiKey::ApiVersions, 3, &f).unwrap();
        assert_eq!(m.header_version, 2);
        assert_eq!(m.trailing, 0);
        assert_eq!(encode_frame(&m).unwrap(), f);
    }

    #[test]
    fn every_key_has_versions() {
        for k in ApiKey::iter() {
            for d in [Direction::Request, Direction::Response] {
                let r = versions(k, d);
                assert!(r.min <= r.max, "{k:?} {d:?}");
                let _ = header_version(k, d, r.max);
            }
        }
    }
}
