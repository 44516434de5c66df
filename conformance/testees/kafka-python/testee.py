#!/usr/bin/env python3
"""kwire conformance testee for kafka-python (testee protocol version 1).

Maps the protocol of conformance/README.md ("Testing another implementation:
the testee protocol") onto kafka-python's own wire code, kafka.protocol:

  * a response frame is read the way a kafka-python client reads it,
    through KafkaProtocol.receive_bytes (kafka/protocol/parser.py): the int32
    size prefix, the correlation id (response header v0), then the
    RESPONSE_TYPE of the request class kafka-python would have sent for that
    API version (XRequest[version].RESPONSE_TYPE);
  * a request frame is read with the same framing (KafkaBytes of the size
    prefix), then RequestHeader.SCHEMA (kafka/protocol/api.py, request header
    v1), then the body with the class kafka-python uses for the header's API
    key and version (XRequest[version], e.g. ProduceRequest[3]);
  * encoding is what kafka-python sends: RequestHeader(request, ...).encode()
    + request.encode() with an int32 size (KafkaProtocol.send_request), and for
    a response the correlation id + response.encode().

Operations: roundtrip and validate. Nothing is checked that kafka-python does
not check itself: whatever its decoders accept, this testee accepts.
Everything kafka-python has no class for (API keys, versions, other header
versions) is answered "unsupported".

The above is kafka-python 2.x (Debian's 2.0.2). kafka-python 3.x rewrote
kafka.protocol (classes generated from Kafka's JSON definitions, flexible
versions): with a 3.x kafka-python (conformance/testees/kafka-python-latest,
which runs this file in a venv) the per-API adapter is KafkaPython3 from
../kafka-python-latest/kafka3_adapter.py; the protocol part below is shared.
"""

import argparse
import json
import logging
import os
import re
import struct
import sys

PROTOCOL = 1
NAME = "kafka-python"
DEBIAN_DIST_PACKAGES = "/usr/lib/python3/dist-packages"

# The modules of kafka.protocol that define the public per-API class lists
# (ProduceRequest = [ProduceRequest_v0, ...]).
PROTOCOL_MODULES = ("produce", "fetch", "offset", "metadata", "commit",
                    "group", "admin")


def import_kafka():
    """Import kafka-python; exit 2 with a clear message when it is missing.

    Debian's python3-kafka installs into /usr/lib/python3/dist-packages, which
    only the system interpreter searches. If another python3 comes first on
    PATH (pyenv, a venv), that directory is tried as a last resort; kafka-python
    is pure Python, so any Python 3 can load it.
    """
    try:
        import kafka  # noqa: F401
        return kafka
    except ImportError:
        pass
    if (os.path.isdir(os.path.join(DEBIAN_DIST_PACKAGES, "kafka", "protocol"))
            and DEBIAN_DIST_PACKAGES not in sys.path):
        sys.path.append(DEBIAN_DIST_PACKAGES)
        try:
            import kafka  # noqa: F401
            return kafka
        except ImportError:
            pass
    sys.stderr.write(
        "kafka-python testee: the Python package 'kafka' (kafka-python) is not "
        "installed for %s.\n"
        "Install it, e.g. 'sudo apt-get install python3-kafka' (Debian/Ubuntu) "
        "or 'pip install kafka-python'.\n" % sys.executable)
    sys.exit(2)


class KafkaPython(object):
    """kafka-python's classes, looked up the way kafka-python looks them up."""

    def __init__(self, kafka):
        import importlib
        self.kafka = kafka
        self.version = getattr(kafka, "__version__", "unknown")
        from kafka.protocol.api import Request, RequestHeader
        from kafka.protocol.frame import KafkaBytes
        from kafka.protocol.parser import KafkaProtocol
        from kafka.protocol.types import Int32
        self.Request = Request
        self.RequestHeader = RequestHeader
        self.KafkaBytes = KafkaBytes
        self.KafkaProtocol = KafkaProtocol
        self.Int32 = Int32
        # api_key -> (list name, [class for version 0, 1, ...])
        self.requests = {}
        for name in PROTOCOL_MODULES:
            module = importlib.import_module("kafka.protocol." + name)
            for attr, value in sorted(vars(module).items()):
                if not (attr.endswith("Request") and isinstance(value, list)
                        and value and all(isinstance(c, type) and issubclass(c, Request)
                                          for c in value)):
                    continue
                key = value[0].API_KEY
                if key in self.requests and self.requests[key][1] is not value:
                    raise RuntimeError("two request lists for API key %d: %s, %s"
                                       % (key, self.requests[key][0], attr))
                self.requests[key] = (attr, value)

    # -- what kafka-python implements ------------------------------------

    def unsupported(self, req):
        """A reason when kafka-python has no class for this vector, else None."""
        key, version = req.get("api_key"), req.get("version")
        direction, header_version = req.get("direction"), req.get("header_version")
        if key not in self.requests:
            return ("kafka-python %s has no classes for API key %s (%s)"
                    % (self.version, key, req.get("api_name")))
        name, classes = self.requests[key]
        if not isinstance(version, int) or not 0 <= version < len(classes):
            return ("kafka-python %s has %s versions 0-%d only, not %s"
                    % (self.version, name, len(classes) - 1, version))
        # kafka-python writes request header v1 only (RequestHeader, api.py) and
        # reads response header v0 only (the correlation id, parser.py); it has
        # no compact types or tagged fields.
        if direction == "request" and header_version != 1:
            return "kafka-python implements request header v1 only, not v%s" % header_version
        if direction == "response" and header_version != 0:
            return "kafka-python implements response header v0 only, not v%s" % header_version
        if direction not in ("request", "response"):
            return "unknown direction %r" % (direction,)
        return None

    # -- requests: framing as parser.py, header as RequestHeader.SCHEMA ------

    def read_request(self, frame):
        """Returns (header fields, request object)."""
        if len(frame) < 4:
            raise Rejected("frame shorter than its 4-byte size prefix", "truncated")
        size_buf = self.KafkaBytes(4)
        size_buf.write(frame[:4])
        size_buf.seek(0)
        nbytes = self.Int32.decode(size_buf)
        # KafkaBytes(nbytes) is what receive_bytes allocates (parser.py).
        buf = self.KafkaBytes(nbytes)
        payload = frame[4:]
        if len(payload) < nbytes:
            raise Rejected("incomplete frame: size %d, %d bytes follow (kafka-python "
                           "would wait for more)" % (nbytes, len(payload)), "truncated")
        if len(payload) > nbytes:
            raise Rejected("%d bytes after the frame of size %d (the start of another "
                           "frame to kafka-python)" % (len(payload) - nbytes, nbytes),
                           "invalid_frame_size")
        buf.write(payload)
        buf.seek(0)
        # kafka-python never parses a request header; RequestHeader.decode
        # cannot even construct one (its __init__ takes a request object), so
        # the header is read with the schema it writes: api_key, api_version,
        # correlation_id, client_id (api.py).
        api_key, api_version, correlation_id, client_id = \
            self.RequestHeader.SCHEMA.decode(buf)
        if api_key not in self.requests:
            raise Rejected("no kafka-python request class for API key %d" % api_key,
                           "unknown_api_key")
        name, classes = self.requests[api_key]
        if not 0 <= api_version < len(classes):
            raise Rejected("no kafka-python class %s[%d]" % (name, api_version),
                           "unsupported_version")
        request = classes[api_version].decode(buf)
        return (correlation_id, client_id), request

    def write_request(self, header, request):
        # KafkaProtocol.send_request (parser.py): header, body, int32 size.
        correlation_id, client_id = header
        rh = self.RequestHeader(request, correlation_id=correlation_id,
                                client_id=client_id)
        message = b"".join([rh.encode(), request.encode()])
        return self.Int32.encode(len(message)) + message

    # -- responses: KafkaProtocol.receive_bytes ------------------------------

    def read_response(self, frame, api_key, version):
        """Returns (correlation id, response object)."""
        request_class = self.requests[api_key][1][version]
        protocol = self.KafkaProtocol(client_id="kwire-testee")
        # The response header is the correlation id: kafka-python matches it
        # against the request in flight, so the request in flight is given the
        # frame's own correlation id (bytes 4-8). _process_response only reads
        # RESPONSE_TYPE of the queued request.
        if len(frame) >= 8:
            correlation_id = int.from_bytes(frame[4:8], "big", signed=True)
        else:
            correlation_id = 0
        protocol.in_flight_requests.append((correlation_id, request_class))
        responses = protocol.receive_bytes(frame)
        if not responses:
            raise Rejected("incomplete frame (kafka-python would wait for more bytes)",
                           "truncated")
        if protocol._receiving or protocol._header.tell():
            raise Rejected("bytes after the frame (the start of another frame to "
                           "kafka-python)", "invalid_frame_size")
        (recv_correlation_id, response), = responses
        return recv_correlation_id, response

    def write_response(self, correlation_id, response):
        message = self.Int32.encode(correlation_id) + response.encode()
        return self.Int32.encode(len(message)) + message

    # -- the operations ------------------------------------------------------

    def decode_frame(self, req, frame):
        if req["direction"] == "request":
            return self.read_request(frame)
        return self.read_response(frame, req["api_key"], req["version"])

    def encode_frame(self, req, decoded):
        header, message = decoded
        if req["direction"] == "request":
            return self.write_request(header, message)
        return self.write_response(header, message)


class Rejected(Exception):
    def __init__(self, text, kind=None):
        Exception.__init__(self, text)
        self.kind = kind


def describe(exc):
    """The rejection answer for an exception raised by kafka-python."""
    if isinstance(exc, Rejected):
        return str(exc), exc.kind
    text = "%s: %s" % (type(exc).__name__, exc)
    # kafka-python's struct errors name a bound method with its address;
    # drop the address so that reports are the same from run to run.
    text = re.sub(r" at 0x[0-9a-fA-F]+", "", text)
    if len(text) > 400:
        text = text[:400] + "..."
    kind = None
    if isinstance(exc, UnicodeDecodeError):
        kind = "invalid_utf8"
    elif isinstance(exc, ValueError) and ("Buffer underrun" in text
                                          or "unpack requires a buffer" in text):
        kind = "truncated"
    return text, kind


def result_of(exc):
    """'rejected' for kafka-python's own decode errors: ValueError (its types raise it
    for a buffer underrun and wrap struct.error in it; UnicodeDecodeError is one),
    struct.error, KafkaProtocolError, and this testee's Rejected. Any other exception (TypeError,
    AttributeError, IndexError, MemoryError, RecursionError, ...) is a fault of
    kafka-python's code, not a verdict on the bytes: 'crashed', a failure (protocol v1)."""
    # kafka-python's client wraps a response's decode error in KafkaProtocolError
    # ("Unable to decode response", kafka/protocol/parser.py): judge what it wraps.
    while (type(exc).__name__ == "KafkaProtocolError"
           and (exc.__cause__ or exc.__context__) is not None):
        exc = exc.__cause__ or exc.__context__
    # KafkaProtocolError and its subclasses (InvalidReceiveError: a negative or oversized
    # frame size, parser.py), which kafka-python's client closes the connection on.
    if isinstance(exc, (Rejected, ValueError, struct.error)) or any(
            c.__name__ == "KafkaProtocolError" for c in type(exc).__mro__):
        return "rejected"
    return "crashed"


def make_adapter(kafka):
    """The adapter for the kafka-python loaded: KafkaPython (2.x, this file) or
    KafkaPython3 (3.x, ../kafka-python-latest/kafka3_adapter.py)."""
    major = str(getattr(kafka, "__version__", "0")).split(".")[0]
    if major.isdigit() and int(major) >= 3:
        latest = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir,
                              "kafka-python-latest")
        sys.path.insert(0, os.path.normpath(latest))
        # No __pycache__ in the source tree.
        dont_write, sys.dont_write_bytecode = sys.dont_write_bytecode, True
        try:
            from kafka3_adapter import KafkaPython3
        finally:
            sys.dont_write_bytecode = dont_write
        return KafkaPython3(kafka, rejected=Rejected)
    return KafkaPython(kafka)


def answer_request(kp, req):
    seq = req.get("seq")
    op = req.get("op")
    if op not in ("roundtrip", "validate"):
        return {"seq": seq, "result": "unsupported",
                "reason": "operation %r is not implemented by this testee" % (op,)}
    reason = kp.unsupported(req)
    if reason:
        return {"seq": seq, "result": "unsupported", "reason": reason}
    note = kp.header_mismatch(req) if hasattr(kp, "header_mismatch") else None
    if note:
        sys.stderr.write("kafka-python testee: %s: %s\n" % (req.get("id"), note))
    try:
        frame = bytes.fromhex(req["frame"])
    except (KeyError, TypeError, ValueError) as exc:
        return {"seq": seq, "result": "rejected", "error": "bad frame hex: %s" % exc}
    try:
        decoded = kp.decode_frame(req, frame)
    except Exception as exc:
        text, kind = describe(exc)
        out = {"seq": seq, "result": result_of(exc), "error": text}
        if kind:
            out["kind"] = kind
        return out
    if op == "validate":
        return {"seq": seq, "result": "ok"}
    try:
        encoded = kp.encode_frame(req, decoded)
    except Exception as exc:
        text, _ = describe(exc)
        return {"seq": seq, "result": result_of(exc),
                "error": "decoded, but kafka-python cannot encode it again: " + text}
    return {"seq": seq, "result": "ok", "frame": encoded.hex()}


def serve(kp, stdin, stdout):
    for line in stdin:
        line = line.strip()
        if not line:
            continue
        try:
            req = json.loads(line)
        except ValueError as exc:
            sys.stderr.write("kafka-python testee: not JSON: %s\n" % exc)
            out = {"seq": None, "result": "unsupported", "reason": "request is not JSON"}
        else:
            if not isinstance(req, dict):
                out = {"seq": None, "result": "unsupported",
                       "reason": "request is not a JSON object"}
            elif req.get("type") == "hello":
                out = {"type": "hello", "protocol": PROTOCOL, "name": NAME,
                       "version": kp.version,
                       "operations": ["roundtrip", "validate"]}
            else:
                out = answer_request(kp, req)
        stdout.write(json.dumps(out, separators=(",", ":")) + "\n")
        stdout.flush()


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="kwire conformance testee for kafka-python (testee protocol v%d). "
                    "Reads the runner's JSON requests on stdin, one per line, and "
                    "answers on stdout. Operations: roundtrip, validate. "
                    "Run it through the runner: kwire conformance --testee "
                    "'python3 conformance/testees/kafka-python/testee.py'."
                    % PROTOCOL)
    parser.add_argument("--list-supported", action="store_true",
                        help="print the API keys and versions kafka-python implements, "
                             "then exit")
    parser.add_argument("--kafka-version", action="store_true",
                        help="print the version of kafka-python the testee loads, then "
                             "exit (2 when kafka-python is missing)")
    args = parser.parse_args(argv)
    kafka = import_kafka()
    # kafka-python logs every response it cannot decode (parser.py); the
    # rejection answer carries the error already.
    logging.getLogger("kafka").addHandler(logging.NullHandler())
    logging.getLogger("kafka").propagate = False
    if args.kafka_version:
        print(getattr(kafka, "__version__", "unknown"))
        return 0
    kp = make_adapter(kafka)
    if args.list_supported:
        for key in sorted(kp.requests):
            name, classes = kp.requests[key]
            print("%3d %-24s versions 0-%d" % (key, name, len(classes) - 1))
        return 0
    sys.stderr.write("kafka-python testee: kafka-python %s from %s\n"
                     % (kp.version, os.path.dirname(kafka.__file__)))
    sys.stderr.flush()
    serve(kp, sys.stdin, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
