"""kafka-python 3.x's own wire code behind kwire's conformance testee protocol.

The adapter that conformance/testees/kafka-python/testee.py uses when the
kafka-python it loads is 3.0 or later (the newest release, pinned in
requirements.txt here). kafka-python 3 replaced the hand-written classes of
kafka.protocol (2.x: ProduceRequest[3], Struct schemas, RequestHeader.SCHEMA)
with classes generated from Apache Kafka's JSON message definitions
(kafka/protocol/schemas/resources/*.json, kafka/protocol/api_message.py), with
flexible versions, compact types and tagged fields. Same interface as the 2.x
adapter (testee.py's KafkaPython): unsupported(), decode_frame(), encode_frame(),
version, requests; nothing else of testee.py changes. A peer benchmark can
import it (KafkaPython3(kafka)) the same way.

  * A response frame is read the way a kafka-python 3 client reads it:
    KafkaProtocol.receive_bytes (kafka/protocol/parser.py) with the request in
    flight that kafka-python would have sent (a RequestHeader of that API key
    and version, the frame's own correlation id): the int32 size prefix, then
    _process_response: the response class for the request's key and version
    (ResponseClassRegistry, api_header.py), parse_header (response header v0,
    or v1 for a flexible version; always v0 for ApiVersions), then decode.
  * A request frame is read with the same framing (the int32 size prefix, as
    receive_bytes frames what it reads), then the request class's own
    decode(..., header=True) (api_message.py), the class chosen by the API key
    and version at the start of the request header, as a broker would.
  * Encoding is what kafka-python sends: obj.encode(header=True, framed=True)
    (KafkaProtocol.send_request) with the decoded header; for a response, the
    decoded correlation id (with_header) and the same encode.

What kafka-python implements is its own answer, not a table kept by hand: the
API keys it has a request and response class for, and the versions those
classes accept (VersionSubscriptable.__getitem__: min_version 0 to
max_version, the top of the JSON definition's validVersions).
"""

import collections
import importlib
import pkgutil
import struct


class Rejected(Exception):
    """The testee's own rejection (framing), as testee.py's Rejected."""

    def __init__(self, text, kind=None):
        Exception.__init__(self, text)
        self.kind = kind


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


class KafkaPython3(object):
    """kafka-python 3.x's classes, looked up the way kafka-python looks them up."""

    def __init__(self, kafka, rejected=Rejected):
        self.kafka = kafka
        self.version = getattr(kafka, "__version__", "unknown")
        self.Rejected = rejected
        import kafka.protocol
        # Every module of kafka.protocol that defines message classes (the 2.x
        # compatibility package kafka.protocol.old and the stub generator aside).
        for info in pkgutil.walk_packages(kafka.protocol.__path__, "kafka.protocol."):
            if ".old" in info.name or info.name.endswith("generate_stubs"):
                continue
            importlib.import_module(info.name)
        from kafka.protocol.api_message import ApiMessage
        from kafka.protocol.api_header import RequestHeader
        from kafka.protocol.parser import KafkaProtocol
        from kafka.protocol.schemas.fields.codecs import Int32
        self.RequestHeader = RequestHeader
        self.KafkaProtocol = KafkaProtocol
        self.Int32 = Int32
        # api_key -> primary class (the versioned ones are cls[version])
        self.request_classes = {}
        self.response_classes = {}
        for cls in _subclasses(ApiMessage):
            if getattr(cls, "_class_version", None) is not None or getattr(cls, "_json", None) is None:
                continue
            table = self.request_classes if cls.is_request() else self.response_classes
            if cls.API_KEY in table and table[cls.API_KEY] is not cls:
                raise RuntimeError("two %s classes for API key %d: %s, %s"
                                   % (cls.type, cls.API_KEY, table[cls.API_KEY].__name__, cls.__name__))
            table[cls.API_KEY] = cls
        # api_key -> (name, [versions]) for testee.py --list-supported
        self.requests = collections.OrderedDict()
        for key in sorted(set(self.request_classes) & set(self.response_classes)):
            cls = self.request_classes[key]
            self.requests[key] = (cls.__name__, list(range(cls.min_version, cls.max_version + 1)))

    def header_versions(self, key, version):
        """(request header version, response header version) kafka-python uses."""
        req = self.request_classes[key].flexible_version_q(version)
        resp_cls = self.response_classes[key]
        resp = resp_cls.flexible_version_q(version) and resp_cls.name != "ApiVersionsResponse"
        return (2 if req else 1), (1 if resp else 0)

    # -- what kafka-python implements ------------------------------------

    def unsupported(self, req):
        key, version = req.get("api_key"), req.get("version")
        direction = req.get("direction")
        if direction not in ("request", "response"):
            return "unknown direction %r" % (direction,)
        table = self.request_classes if direction == "request" else self.response_classes
        if key not in table:
            return ("kafka-python %s has no %s class for API key %s (%s)"
                    % (self.version, direction, key, req.get("api_name")))
        cls = table[key]
        if not isinstance(version, int) or not cls.min_version <= version <= cls.max_version:
            return ("kafka-python %s has %s versions %d-%d only, not %s"
                    % (self.version, cls.__name__, cls.min_version, cls.max_version, version))
        return None

    def header_mismatch(self, req):
        """A note when kafka-python's header version differs from the vector's."""
        rq, rs = self.header_versions(req["api_key"], req["version"])
        mine = rq if req["direction"] == "request" else rs
        if mine != req.get("header_version"):
            return ("kafka-python %s uses %s header v%d for %s v%d, the vector v%s"
                    % (self.version, req["direction"], mine, req.get("api_name"),
                       req["version"], req.get("header_version")))
        return None

    # -- requests ----------------------------------------------------------

    def _framed(self, frame):
        """The payload after the size prefix, framed as receive_bytes frames it."""
        if len(frame) < 4:
            raise self.Rejected("frame shorter than its 4-byte size prefix", "truncated")
        nbytes = struct.unpack(">i", frame[:4])[0]
        payload = frame[4:]
        if nbytes < 0:
            # KafkaProtocol._validate_frame_size (parser.py)
            raise self.Rejected("Invalid frame length: %d" % nbytes, "invalid_frame_size")
        if len(payload) < nbytes:
            raise self.Rejected("incomplete frame: size %d, %d bytes follow (kafka-python "
                                "would wait for more)" % (nbytes, len(payload)), "truncated")
        if len(payload) > nbytes:
            raise self.Rejected("%d bytes after the frame of size %d (the start of another "
                                "frame to kafka-python)" % (len(payload) - nbytes, nbytes),
                                "invalid_frame_size")
        return payload

    def read_request(self, frame):
        payload = self._framed(frame)
        if len(payload) < 4:
            raise self.Rejected("request header shorter than api key and version", "truncated")
        api_key, api_version = struct.unpack(">hh", payload[:4])
        cls = self.request_classes.get(api_key)
        if cls is None:
            raise self.Rejected("no kafka-python request class for API key %d" % api_key,
                                "unknown_api_key")
        # ApiMessage.decode checks the version itself (ValueError "Invalid version").
        return cls.decode(payload, version=api_version, header=True)

    def write_request(self, request):
        return request.encode(header=True, framed=True)

    # -- responses: KafkaProtocol.receive_bytes ------------------------------

    def read_response(self, frame, api_key, version):
        protocol = self.KafkaProtocol(client_id="kwire-testee")
        correlation_id = struct.unpack(">i", frame[4:8])[0] if len(frame) >= 8 else 0
        # The request in flight: send_request queues request.header, a RequestHeader
        # whose get_response_class() picks the response class (api_header.py).
        protocol.in_flight_requests.append(self.RequestHeader(
            request_api_key=api_key, request_api_version=version,
            correlation_id=correlation_id, client_id="kwire-testee"))
        responses = protocol.receive_bytes(frame)
        if not responses:
            raise self.Rejected("incomplete frame (kafka-python would wait for more bytes)",
                                "truncated")
        if protocol._receiving or protocol._header.tell():
            raise self.Rejected("bytes after the frame (the start of another frame to "
                                "kafka-python)", "invalid_frame_size")
        (recv_correlation_id, response), = responses
        return recv_correlation_id, response

    def write_response(self, correlation_id, response):
        response.with_header(correlation_id=correlation_id)
        return response.encode(header=True, framed=True)

    # -- the operations (testee.py calls these) ------------------------------

    def decode_frame(self, req, frame):
        if req["direction"] == "request":
            return self.read_request(frame)
        return self.read_response(frame, req["api_key"], req["version"])

    def encode_frame(self, req, decoded):
        if req["direction"] == "request":
            return self.write_request(decoded)
        correlation_id, response = decoded
        return self.write_response(correlation_id, response)
