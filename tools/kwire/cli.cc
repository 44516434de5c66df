#include "tools/kwire/cli.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "codec/harness/diagnose.h"
#include "codec/harness/explain.h"
#include "codec/harness/minimal.h"
#include "codec/protocol/correlator.h"
#include "codec/protocol/frame.h"
#include "codec/protocol/refusal.h"
#include "codec/protocol/registry.h"
#include "codec/wire/hex.h"
#include "conformance/check.h"
#include "conformance/testee.h"
#include "tools/kwire/explain_view.h"
#include "tools/kwire/testee.h"
#include "tools/proxy/proxy.h"
#if KWIRE_HAVE_PCAP
#include "tools/pcap/pcap.h"
#endif
#if KWIRE_HAVE_DIFF
#include "tools/diff/diff.h"
#endif
#if KWIRE_HAVE_BROKERFUZZ
#include "tools/brokerfuzz/brokerfuzz.h"
#endif
#include "tools/html/page.h"
#include "tools/html/report.h"
#include "tools/html/site.h"
#include "tools/json/json.h"
#if KWIRE_HAVE_RECORDS_PRINT
#include "codec/harness/print_records.h"
#endif

namespace kwire::cli {
namespace {

// ---- Help texts.

constexpr const char* kMainUsage =
    "usage: kwire <command> [options]\n"
    "\n"
    "Kafka wire protocol codec: every API key and version, requests and responses.\n"
    "\n"
    "commands:\n"
    "  apis           list every API: key, name, request/response versions, first flexible\n"
    "                 version, removed versions, Kafka releases; or one API's versions\n"
    "  minimal        print the documented minimal frame of an API version as hex\n"
    "  decode         decode a frame read from stdin and print its re-encoding (or, with\n"
    "                 --json, the message as JSON)\n"
    "  encode         encode frames given as JSON (conformance/FORMAT.md) and print them\n"
    "  explain        print the object tree and byte layout of a frame read from stdin\n"
    "                 (--html FILE: one self-contained HTML page instead)\n"
    "  conformance    run the conformance vectors (decode, byte-identical re-encode,\n"
    "                 minimal instance, seed trees); JUnit / JSON reports; with\n"
    "                 --testee, the JSON Lines vectors against any implementation\n"
    "  testee         kwire as a conformance testee (the testee protocol on stdin/stdout)\n"
    "  proxy          a checking proxy on loopback: forwards a client's traffic to a broker\n"
    "                 and checks every frame both ways (one JSON line per frame)\n"
    "  pcap           the same checks on a packet capture (pcap/pcapng): TCP streams\n"
    "                 reassembled, Kafka frames checked both ways\n"
    "  diff           a differential campaign: mutated frames sent to several testees,\n"
    "                 their answers compared, disagreements minimized\n"
    "  broker-fuzz    a live broker under hostile frames: mutated requests sent over\n"
    "                 loopback, every answer checked, ApiVersions and RSS watched\n"
    "  site           write the documentation site: an index of every API and a page per\n"
    "                 API with its minimal frames byte by byte (HTML)\n"
    "  help [command] this text, or a command's help (same as `kwire <command> --help`)\n"
    "\n"
    "exit status: 0 success, 1 failure, 2 usage error, 3 (decode) a request a broker\n"
    "reads but refuses in part\n";

constexpr const char* kApisUsage =
    "usage: kwire apis [<api key|name>]\n"
    "\n"
    "Without an argument, one line per API key: key, name, request and response versions,\n"
    "first flexible version (KIP-482), versions the newest Kafka release no longer has\n"
    "(KIP-896 in 4.0, the share-group v0 in 4.1, the ZooKeeper-only APIs; kwire still\n"
    "speaks them), the Kafka releases that have the API (\"<=2.2\": 2.2 or earlier) and\n"
    "notes: an unstable latest version (latestVersionUnstable), the last release of removed\n"
    "versions, former names.\n"
    "\n"
    "With an API key or name (a former name works too), one line per version: flexible,\n"
    "request and response header versions, the first Kafka release in which it is stable,\n"
    "the last release that has it, and whether it is current, removed or unstable.\n"
    "Releases come from the kafka-clients jars pinned in tools/kafka-releases.txt.\n";

constexpr const char* kMinimalUsage =
    "usage: kwire minimal <api key|name> <version|max> <request|response>\n"
    "\n"
    "Prints the documented minimal frame (conformance/README.md) as lowercase hex: size\n"
    "prefix, header (correlation_id 0, client_id \"\"), and the smallest legal body\n"
    "(numbers zero, strings empty, one element per array, an empty RecordBatch v2 in\n"
    "records fields, tagged fields absent).\n"
    "\n"
    "example: kwire minimal 41 3 request      (or: kwire minimal DescribeDelegationToken 3 "
    "request)\n";

constexpr const char* kDecodeUsage =
    "usage: kwire decode <request|response> [--api K --version V|auto | --requests FILE]\n"
    "                    [--binary] [--quirks LIST] [--records validate|opaque] [--quiet]\n"
    "                    [--json]\n"    "       kwire decode --vector FILE:LINE [...]   (a conformance vector's frame: its\n"
    "                    direction, API and version from the vector; what `kwire conformance\n"
    "                    --testee` prints beside a failure)\n"
    "\n"
    "Reads frames (size prefix included, any number back to back) from stdin: hex\n"
    "(whitespace ignored), or raw bytes with --binary. For each frame prints its\n"
    "re-encoding as hex on stdout (with --json: one line of JSON per frame instead, see\n"
    "below) and a summary on stderr, e.g.\n"
    "  ProduceRequest v9, request header v2, 138 bytes, re-encoding identical\n"
    "Exits 0 when every frame decodes and re-encodes to the same bytes; 3 when every frame\n"
    "does, but a broker refuses part of a request (below); 1 otherwise,\n"
    "with the precise error (e.g. \"truncated at byte 17 in\n"
    "FetchRequest.Topics[0].FetchOffset (need 8, have 3)\"; byte offsets count from the\n"
    "frame's first byte, and a stream's messages name the frame and where it starts; a\n"
    "failure inside a string or an array element also names the length or count that was\n"
    "read and where, e.g. \"string of length 127 read at byte 43, ends at byte 172\"), then\n"
    "\"hint:\" lines when a likelier cause is visible: another version that decodes the\n"
    "frame, a size prefix off by 1-3 bytes, or a length or count read before the failure\n"
    "with which the frame decodes (each found by decoding changed copies of the frame);\n"
    "or, when a frame decodes but re-encodes differently (possible only under --quirks),\n"
    "the canonical re-encoding and where it differs.\n"
    "\n"
    "Record batches in records fields (Produce, Fetch, ShareFetch) are validated: CRC,\n"
    "record framing and counts, decompression, and the protocol's rules for the field (a\n"
    "partial last batch only at the end of a Fetch/ShareFetch partition, exactly one magic 2\n"
    "batch per Produce v3+ partition). FetchSnapshot's UnalignedRecords is a raw byte range\n"
    "and is never parsed. A fault in a Produce request's records does not make the frame\n"
    "unreadable: a broker reads the request and answers that partition with an error code\n"
    "(INVALID_RECORD, CORRUPT_MESSAGE, UNSUPPORTED_COMPRESSION_TYPE, UNKNOWN_SERVER_ERROR)\n"
    "while it appends the others (a few faults fail every partition of the request). kwire\n"
    "does the same: the frame decodes, each refused partition is named on\n"
    "stderr (\"refused: ProduceRequest.TopicData[0].PartitionData[1].Records:\n"
    "INVALID_RECORD (87): ...\"; in --json, a \"refusals\" array), and the exit status is 3.\n"
    "A fault in a response's records (Fetch, ShareFetch) fails the frame.\n"
    "\n"
    "Strings must be UTF-8; under --quirks java (or invalid-utf8) other bytes are kept and\n"
    "written back as they are.\n"    "\n"
    "options:\n"
    "  --api K          API key or name; for responses (their header does not carry it)\n"
    "                   with --version, or checked against each request's header\n"
    "  --version V      API version; for responses, or checked for requests. For\n"
    "                   responses `auto`: the newest version at which the frame decodes\n"
    "                   (stderr names every one that does)\n"
    "  --requests FILE  responses: the request stream they answer (hex, or raw with\n"
    "                   --binary); each response's API and version come from the request\n"
    "                   with its correlation id\n"
    "  --binary         input is raw bytes instead of hex\n"
    "  --quirks LIST    accept what Apache Kafka's Java code accepts: `java` (all), or a\n"
    "                   comma-separated list of non-canonical-varint, varint-extra-bits,\n"
    "                   any-nonzero-bool, any-negative-length-is-null, unordered-tags,\n"
    "                   any-struct-marker, invalid-utf8, known-tag-size-ignored,\n"
    "                   apiversions-any-fallback (default: strict); they apply inside\n"
    "                   records too. An ApiVersions response that a broker answered at v0\n"
    "                   (KIP-511: error 35) is read at v0 strictly too, and says so\n"
    "  --records MODE   validate (default) or opaque: keep records fields unexamined\n"
    "  --quiet          no summary lines (errors and refusals are still printed)\n"
    "  --json           print each frame as one line of JSON in the mapping of\n"
    "                   conformance/FORMAT.md: {\"api_key\", \"api_name\", \"version\",\n"
    "                   \"direction\", \"header_version\", \"header\", \"body\", \"frame\"\n"
    "                   (its hex), and for a refused request \"refusals\": [{\"part\",\n"
    "                   \"error_code\", \"error\", \"kind\", \"offset\", \"path\", \"detail\",\n"
    "                   \"whole_request\", \"kafka_appends\", \"source\"}]};\n"
    "                   `kwire encode` turns it back into the frame\n";

constexpr const char* kEncodeUsage =
    "usage: kwire encode [--binary]\n"
    "\n"
    "Reads frames described as JSON from stdin (one object per line, JSON Lines, or one\n"
    "object over several lines) in the mapping of conformance/FORMAT.md:\n"
    "  {\"api_key\": 3, \"version\": 12, \"direction\": \"request\",\n"
    "   \"header\": {\"CorrelationId\": 7, \"ClientId\": \"me\"},\n"
    "   \"body\": {\"Topics\": null, \"AllowAutoTopicCreation\": false}}\n"
    "and prints each frame (size prefix, header, body) as a line of hex on stdout, or the\n"
    "raw bytes with --binary. Fields left out take their default value; a field that does\n"
    "not exist at the version, a value of the wrong type or range, or null where the\n"
    "field is not nullable is an error naming its JSON path. \"api_name\" and\n"
    "\"header_version\", when given, must agree with the API; other members (a\n"
    "conformance vector's id, frame, ...) are ignored, and `kwire decode --json` output\n"
    "encodes back to the same frame.\n"
    "Exits 0 when every object encodes, 1 otherwise (each error names the object's line).\n"
    "\n"
    "example: kwire minimal 41 3 request | kwire decode request --json --quiet | kwire encode\n"
    "\n"
    "options:\n"
    "  --binary         write raw frames instead of hex lines\n";

constexpr const char* kExplainUsage =
    "usage: kwire explain <request|response> [--api K --version V|auto | --requests FILE]\n"
    "                     [--binary] [--quirks LIST] [--records validate|opaque]\n"
    "                     [--width N] [--no-bytes] [--depth N] [--path P] [--lengths]\n"
    "                     [--show-secrets] [--html FILE]\n"
    "       kwire explain --vector FILE:LINE [...]   (a conformance vector's frame)\n"
    "\n"
    "Reads frames like `kwire decode` and prints, for each, its byte layout (16 bytes per\n"
    "row, with a region map) and its object tree: frame, header and body, every field with\n"
    "[offset, size], Kafka type and value, and the length / count / tagged-field rows;\n"
    "record batches down to each record's fields (rows that are not wire fields, a batch's\n"
    "compression, crcCheck and producer, are typed (derived); the records of a compressed\n"
    "batch have no wire position, [offset, 0B]). Sensitive fields (SASL auth bytes, token\n"
    "HMACs, SCRAM salts and salted passwords) are redacted unless --show-secrets. Exits 1,\n"
    "after printing the tree up to the failure, when a frame does not decode — a corrupt\n"
    "record batch included (shown as an error node), unless --records opaque: the failing\n"
    "byte is marked in the byte layout ('>' before it, '!' in the region map), a string or\n"
    "bytes value that failed gets a `length` row (the value on the wire) and its bytes up\n"
    "to the failure, a count or length that failed shows its value, and the error and\n"
    "hints follow as for `kwire decode`.\n"
    "\n"
    "options: --api, --version, --requests, --binary, --quirks, --records as for\n"
    "`kwire decode`, and\n"
    "  --width N        fit the object tree in N columns (default 120; 0: no limit):\n"
    "                   long values continue and long notes wrap on lines that keep\n"
    "                   the tree's guides\n"
    "  --no-bytes       print the object tree alone, no byte layout\n"
    "  --lengths        a `length` row under every string and bytes value too (offset,\n"
    "                   size and value of its prefix; else they say it in their detail)\n"
    "  --depth N        print the tree to N levels (the root is level 0; Frame, the header\n"
    "                   and the body are level 1), or N levels below the --path node; each\n"
    "                   deeper subtree is one '…' row with its number of rows and bytes\n"
    "  --path P         print only the subtree at P and its ancestors' rows, and the byte\n"
    "                   layout's rows that hold its bytes. P is a path as decode errors\n"
    "                   write it (MetadataResponse.Topics[3], RequestHeader.ClientId), as\n"
    "                   the tree does (Body.Topics[3]) or below the body (Topics[3].Name);\n"
    "                   case and '_' do not matter; a path no row has selects the rows it\n"
    "                   begins (Topics[1 is Topics[1] and Topics[10] to [19]), else the rows\n"
    "                   it ends (Batch[0].Records.Record[1]). Exit 1 when it selects no row\n"
    "                   (the body's fields are listed)\n"
    "  --show-secrets   print sensitive fields and their bytes\n"
    "  --html FILE      write one self-contained HTML page for all frames read to FILE\n"
    "                   ('-': stdout) instead of the text: per frame a summary, the bytes\n"
    "                   in a grid coloured by section (framing, header, body, RecordBatch,\n"
    "                   Record, tagged fields), the object tree (hover or click a byte to\n"
    "                   find its field, a field to see its bytes), a failure marked in both.\n"
    "                   No network, no external file; the exit status is the same\n";

constexpr const char* kSiteUsage =
    "usage: kwire site OUTDIR [--all-versions]\n"
    "\n"
    "Writes the documentation site into OUTDIR (created if missing; its pages are\n"
    "overwritten): index.html lists every API (key, name, request and response versions,\n"
    "flexible versions, removed versions, the Kafka release in which each version was first\n"
    "stable), and <Api>.html shows an API at its newest version: the documented minimal\n"
    "request and response frames (as `kwire minimal`), each with a summary, its bytes in a\n"
    "grid coloured by section, its object tree, and the message schema from kwire's own\n"
    "definitions (codec/defs). Every page is self-contained HTML (no network).\n"
    "Exits 1 when a page cannot be written or a minimal frame cannot be made.\n"
    "\n"
    "options:\n"
    "  --all-versions   also a page per version, <Api>-v<N>.html\n";

constexpr const char* kConformanceUsage =
    "usage: kwire conformance [dir] [--expected-failures FILE] [--junit FILE] [--json FILE]\n"
    "                         [--html FILE]\n"
    "\n"
    "Runs every *.txt vector file in dir (default: $KWIRE_CONFORMANCE_DIR, else the\n"
    "installed share/kwire/conformance/vectors, else the source tree's conformance/vectors)\n"
    "with the checks of the GoogleTest runner: each frame decodes, re-encodes to the same\n"
    "bytes and equals the codec's minimal instance, and each seed frame's object tree\n"
    "matches its seed tree. Prints a summary; exits 1 on any failure.\n"
    "\n"
    "options:\n"
    "  --expected-failures FILE  known failures: without --testee, `<api_key> <version>\n"
    "                            <request|response> # reason` per line (default:\n"
    "                            dir/../expected_failures.txt or dir/expected_failures.txt\n"
    "                            if present); with --testee, vector ids, one per line,\n"
    "                            `# reason` after it (no default). A listed vector that\n"
    "                            passes is reported and fails the run.\n"
    "  --junit FILE              write a JUnit XML report (one testcase per vector)\n"
    "  --json FILE               write a JSON report\n"
    "  --html FILE               write an HTML report (one self-contained page): counts per\n"
    "                            file and per API and version, and each failure (at most\n"
    "                            200 drawn in full) with its frame's bytes and object tree,\n"
    "                            the failing byte or field marked, the checks' messages and,\n"
    "                            with --testee, the expected vs the answered JSON and the\n"
    "                            testee's error text; the exit status is unchanged\n"
    "\n"
    "Any implementation: --testee CMD runs the JSON Lines vectors (*.jsonl in dir; see\n"
    "conformance/FORMAT.md) against the program CMD (run with /bin/sh -c), which speaks\n"
    "the testee protocol version 1 on stdin/stdout (conformance/README.md, \"Testing\n"
    "another implementation\"): decode, encode, roundtrip, validate, each answered ok,\n"
    "rejected, unsupported or crashed (a failure). Prints passed / failed / unsupported per\n"
    "category; exits 1 on a failure, an unexpected pass, a testee fault (garbage, extra\n"
    "answers, timeouts, exits) or when no vector matches the filters; 2 on usage errors.\n"
    "`kwire testee` is kwire's own.\n"
    "  --testee CMD              the program to test\n"
    "  --category LIST           minimal (sets minimal, minimal-removed, seeds), rich,\n"
    "                            negative, records, kip511 (ApiVersions' v0 fallback),\n"
    "                            java (frames written by Apache Kafka's own classes),\n"
    "                            live (a real broker's and client's traffic);\n"
    "                            comma-separated (default: all)\n"
    "  --api LIST                API keys or names, comma-separated\n"
    "  --version LIST            API versions, comma-separated\n"
    "  --direction D             request or response\n"
    "  --id PREFIX               only vectors whose id starts with PREFIX\n"
    "  --lenient                 leave out negative vectors that Java's decoder accepts\n"
    "  --timeout SECONDS         per answer (default 10); a testee that does not answer\n"
    "                            in time is killed and restarted (at most 10 times)\n"
    "  --testee-log FILE         write the testee's stderr to FILE\n"
    "  --strict-errors           a negative vector rejected with another kind, offset or\n"
    "                            path than the vector's fails (default: it passes and is\n"
    "                            listed apart: right verdict, other diagnosis)\n"
    "  --list                    print the requests (`id op`) the filters select, and\n"
    "                            start nothing\n";

constexpr const char* kTesteeUsage =
    "usage: kwire testee [--quirks LIST] [--records validate|opaque]\n"
    "\n"
    "kwire as a conformance testee: answers the testee protocol version 1 (conformance/\n"
    "README.md) on stdin/stdout until stdin ends, with every operation (decode, encode,\n"
    "roundtrip, validate). Decoding is strict, records validated, unless --quirks /\n"
    "--records say otherwise (as for `kwire decode`). Run it through the runner:\n"
    "  kwire conformance --testee 'kwire testee'\n"
    "  kwire conformance --testee 'kwire testee --quirks java' --lenient\n";

constexpr const char* kProxyUsage =
    "usage: kwire proxy --broker HOST:PORT [--listen HOST:PORT] [--quirks LIST]\n"
    "                   [--records validate|opaque] [--fail-fast] [--no-rewrite]\n"
    "                   [--log FILE] [--port-file FILE] [--summary-json FILE]\n"
    "                   [--max-frame-size BYTES] [--max-connections N] [--frames]\n"
    "                   [--check on|off] [--check-threads N]\n"
    "\n"
    "Listens on loopback (--listen, default 127.0.0.1:0: a free port, printed on stderr\n"
    "and written to --port-file) and forwards every connection to the broker, passing\n"
    "every byte through unchanged while it checks each frame in both directions, as\n"
    "`kwire decode` does: requests read as a broker reads them (refusals), responses\n"
    "typed by their request's correlation id, API key and version, records validated,\n"
    "each re-encoded and compared byte for byte. Broker addresses in responses\n"
    "(Metadata, FindCoordinator, DescribeCluster, and KIP-951's NodeEndpoints in\n"
    "Produce, Fetch, ShareFetch, ShareAcknowledge) are rewritten to listeners of the\n"
    "proxy, one per advertised broker, so a client bootstrapped on the proxy stays on it\n"
    "(those responses are re-encoded; --no-rewrite leaves them). SASL passes through\n"
    "(SaslAuthenticate frames are checked; SaslHandshake v0's raw tokens are 'opaque').\n"
    "TLS cannot be checked. Loopback only: the listen and broker addresses must be\n"
    "127.0.0.0/8, ::1 or localhost (reach a remote broker through an SSH tunnel).\n"
    "\n"
    "Report: one JSON line per frame on stdout (or --log FILE): connection, direction,\n"
    "api_key, api, version, correlation_id, size, verdict (ok, refused, rejected,\n"
    "not_canonical, uncorrelated, opaque), error {kind, offset, path, message},\n"
    "refusals, rewritten; and events (listen, connect, close, stream_error). A\n"
    "connection's lines come in its frame order. On SIGINT, SIGTERM or SIGHUP it stops\n"
    "and prints a summary per API x version x direction on stderr (--summary-json FILE:\n"
    "as JSON).\n"
    "\n"
    "  --broker HOST:PORT     the broker clients bootstrap from (required)\n"
    "  --quirks LIST          accept what Apache Kafka's Java accepts: java (all), or\n"
    "                         names as listed by `kwire decode --help`\n"
    "  --records MODE         validate (default) or opaque\n"
    "  --fail-fast            stop at the first frame that does not conform (exit 1;\n"
    "                         a request is forwarded before its check ends)\n"
    "  --max-frame-size N     largest size prefix accepted (default 104857600, Kafka's\n"
    "                         socket.request.max.bytes); a larger or negative one ends\n"
    "                         that connection. Memory per connection: about three\n"
    "                         times this (a frame each way, requests awaiting a check)\n"
    "  --max-connections N    client connections at once (default 1024)\n"
    "  --frames               each frame's line also carries its bytes (\"frame\": hex)\n"
    "  --check on|off         off: forward without checking (frames are only split and\n"
    "                         correlated, addresses still rewritten; no frame lines,\n"
    "                         verdict 'unchecked' in the summary): the relay's own cost\n"
    "  --check-threads N      worker threads for the checks (default: one per core);\n"
    "                         each connection's frames are checked in order on one\n"
    "                         worker, so a slow check delays no other connection\n"
    "\n"
    "Exit status: 0 every frame conformed, 1 one did not (or a stream could not be\n"
    "split), 2 usage error or cannot listen.\n"
    "Example (a broker on 9092; clients bootstrap from 127.0.0.1:19092):\n"
    "  kwire proxy --broker 127.0.0.1:9092 --listen 127.0.0.1:19092 --log frames.jsonl\n";

constexpr const char* kPcapUsage =
    "usage: kwire pcap FILE [--port N]... [--quirks LIST] [--records validate|opaque]\n"
    "                  [--fail-fast] [--log FILE] [--summary-json FILE]\n"
    "                  [--max-frame-size BYTES] [--frames]\n"
    "\n"
    "Reads a packet capture (pcap or pcapng, e.g. `tcpdump -w`; Ethernet, raw IP, loopback\n"
    "or Linux cooked link types; libpcap), reassembles its TCP streams in both directions\n"
    "(libtins: retransmitted and out-of-order segments handled) and checks every Kafka frame\n"
    "as `kwire proxy` does, one connection state per TCP stream: client-to-broker frames as\n"
    "requests (read as a broker reads them), broker-to-client frames as responses typed by\n"
    "their request's correlation id, records validated, each re-encoded and compared.\n"
    "\n"
    "A stream is Kafka when one end has a --port (that end is the broker); without --port,\n"
    "when its client's first bytes are a request header with a known API key and version\n"
    "and a plausible size. A stream begun before the capture is checked from the first\n"
    "segment that starts a frame (event mid_stream; not_checkable if none does, or if that\n"
    "frame does not decode). Bytes the capture lacks (a peer acknowledges data the capture\n"
    "does not have, segments after a hole never filled, a segment cut by the snap length)\n"
    "end the checking of that stream (event gap), so nothing after the hole is misread.\n"
    "\n"
    "Report: one JSON line per frame on stdout (or --log FILE), as kwire proxy's\n"
    "(connection, direction, api_key, api, version, correlation_id, size, verdict, error\n"
    "{kind, offset, path, message}, refusals) plus client and server (address:port) and\n"
    "time (UTC capture time of the packet that completed the frame); and events (stream,\n"
    "mid_stream, gap, not_checkable, stream_error, close, end, capture_error). Then the\n"
    "summary per API x version x direction and a line about the capture on stderr\n"
    "(--summary-json FILE: as JSON, with \"capture\").\n"
    "\n"
    "  --port N               a broker's TCP port (repeatable, or N,M); default: guess\n"
    "  --quirks LIST          accept what Apache Kafka's Java accepts: java (all), or\n"
    "                         names as listed by `kwire decode --help`\n"
    "  --records MODE         validate (default) or opaque\n"
    "  --fail-fast            stop at the first frame that does not conform (exit 1)\n"
    "  --max-frame-size N     largest size prefix accepted (default 104857600, Kafka's\n"
    "                         socket.request.max.bytes); a larger or negative one ends that\n"
    "                         stream (stream_error). Held: at most one incomplete frame per\n"
    "                         direction, 1 GiB for all streams together\n"
    "  --frames               each frame's line also carries its bytes (\"frame\": hex)\n"
    "\n"
    "Exit status: 0 every frame conformed, 1 one did not (or a stream could not be split\n"
    "into frames, or the file is corrupt after its start), 2 usage error or the capture\n"
    "cannot be opened. Gaps and streams not checkable do not fail it: the summary counts\n"
    "them. Example:\n"
    "  tcpdump -i lo -w kafka.pcap tcp port 9092     (run the client, then Ctrl-C)\n"
    "  kwire pcap kafka.pcap --port 9092 --log frames.jsonl\n";

// ---- Argument parsing.

struct Args {
  std::vector<std::string> positional;
  std::map<std::string, std::string> values;
  std::set<std::string> flags;
  bool help = false;

  std::optional<std::string> Get(const std::string& name) const {
    auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    return it->second;
  }
};

// A usage error: set by the helpers below, printed with the command's usage (exit 2).
struct Usage {
  std::string error;
  bool Fail(std::string message) {
    if (error.empty()) error = std::move(message);
    return false;
  }
  bool ok() const { return error.empty(); }
};

// Parses `args[from..]` for a command that takes the options `valued` (--name VALUE or
// --name=VALUE, at most once) and `flags` (--name): CLI11 (Debian libcli11-dev) does the
// parsing; -h/--help anywhere, `--` ends options, every other argument is positional.
// The command's help
// text stays ours (the usage strings above). Returns false with `error` set on bad usage.
bool Parse(const std::vector<std::string>& args, size_t from, const std::set<std::string>& valued,
           const std::set<std::string>& flags, Args& out, std::string& error,
           const std::set<std::string>& repeatable = {}) {
  CLI::App app;
  app.set_help_flag();  // the usage texts above are the help
  app.add_flag("-h,--help", out.help);
  std::vector<std::pair<std::string, CLI::Option*>> options;
  std::map<std::string, std::string> values;
  // Options in `repeatable` may be given more than once: their values joined by '\n'.
  for (const std::string& name : valued) {
    options.emplace_back(name, app.add_option("--" + name, values[name])
                                   ->multi_option_policy(repeatable.count(name)
                                                             ? CLI::MultiOptionPolicy::Join
                                                             : CLI::MultiOptionPolicy::Throw)
                                   ->allow_extra_args(false));
  }
  std::map<std::string, bool> flag_values;
  for (const std::string& name : flags) {
    options.emplace_back(name, app.add_flag("--" + name, flag_values[name])
                                   ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)
                                   ->disable_flag_override());
  }
  app.add_option("arguments", out.positional);
  // CLI11 reads the vector from its back.
  std::vector<std::string> opts(args.begin() + static_cast<std::ptrdiff_t>(from), args.end());
  std::reverse(opts.begin(), opts.end());
  try {
    app.parse(opts);
  } catch (const CLI::ParseError& e) {
    error = e.what();
    return false;
  }
  for (const auto& [name, option] : options) {
    if (option->count() == 0) continue;
    if (valued.count(name)) {
      out.values[name] = values[name];
    } else if (flag_values[name]) {
      out.flags.insert(name);
    }
  }
  return true;
}

std::optional<long> ParseNumber(const std::string& s) {
  if (s.empty() || s.size() > 12) return std::nullopt;
  size_t i = s[0] == '-' ? 1 : 0;
  if (i == s.size()) return std::nullopt;
  long v = 0;
  for (; i < s.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return std::nullopt;
    v = v * 10 + (s[i] - '0');
  }
  return s[0] == '-' ? -v : v;
}

bool ResolveApi(const std::string& s, const ApiInfo*& api, Usage& u) {
  if (auto n = ParseNumber(s)) {
    api = *n >= INT16_MIN && *n <= INT16_MAX ? FindApi(static_cast<int16_t>(*n)) : nullptr;
    return api != nullptr || u.Fail("unknown API key " + s + " (see `kwire apis`)");
  }
  api = FindApiByName(s);
  return api != nullptr || u.Fail("unknown API name '" + s + "' (see `kwire apis`)");
}

bool ResolveDirection(const std::string& s, Direction& dir, Usage& u) {
  if (s == "request")
    dir = Direction::kRequest;
  else if (s == "response")
    dir = Direction::kResponse;
  else
    return u.Fail("expected 'request' or 'response', got '" + s + "'");
  return true;
}

bool ResolveVersion(const ApiInfo& api, Direction dir, const std::string& s, int16_t& version,
                    Usage& u) {
  const VersionRange valid =
      dir == Direction::kRequest ? api.request_versions() : api.response_versions();
  if (s == "max") {
    version = valid.hi;
    return true;
  }
  auto n = ParseNumber(s);
  if (!n) return u.Fail("expected a version number or 'max', got '" + s + "'");
  if (*n < valid.lo || *n > valid.hi) {
    return u.Fail(absl::StrFormat("%s %s version %s is not valid; valid versions are %d-%d",
                                  api.name, DirectionName(dir), s, valid.lo, valid.hi));
  }
  version = static_cast<int16_t>(*n);
  return true;
}

bool ResolveQuirks(const std::string& list, uint32_t& q, Usage& u) {
  static const std::map<std::string, uint32_t> kNames = {
      {"java", kQuirksJava},
      {"none", 0},
      {"non-canonical-varint", kQuirkNonCanonicalVarint},
      {"varint-extra-bits", kQuirkVarintExtraBits},
      {"any-nonzero-bool", kQuirkAnyNonZeroBool},
      {"any-negative-length-is-null", kQuirkAnyNegativeLengthIsNull},
      {"unordered-tags", kQuirkUnorderedTags},
      {"any-struct-marker", kQuirkAnyStructMarker},
      {"invalid-utf8", kQuirkInvalidUtf8},
      {"known-tag-size-ignored", kQuirkKnownTagSizeIgnored},
      {"apiversions-any-fallback", kQuirkApiVersionsAnyFallback},
  };
  q = 0;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = list.find(',', start);
    const std::string name =
        list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    auto it = kNames.find(name);
    if (it == kNames.end()) return u.Fail("unknown quirk '" + name + "' (see --help)");
    q |= it->second;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return true;
}

// --records validate|opaque into `mode` (left as it is when the option is absent).
bool ResolveRecords(const Args& a, RecordsMode& mode, Usage& u) {
  const std::optional<std::string> m = a.Get("records");
  if (!m) return true;
  if (*m == "validate") {
    mode = RecordsMode::kValidate;
  } else if (*m == "opaque") {
    mode = RecordsMode::kOpaque;
  } else {
    return u.Fail("--records takes 'validate' or 'opaque', not '" + *m + "'");
  }
  return true;
}

// Reads stdin as hex (whitespace ignored) or raw bytes. Returns false with `error` set.
bool ReadInput(std::istream& in, bool binary, std::vector<uint8_t>& out, std::string& error) {
  const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (binary) {
    out.assign(data.begin(), data.end());
  } else {
    std::string hex;
    for (size_t i = 0; i < data.size(); ++i) {
      const unsigned char c = static_cast<unsigned char>(data[i]);
      if (std::isspace(c)) continue;
      if (!std::isxdigit(c)) {
        error = absl::StrFormat(
            "input is not hex: %s at input byte %d (0-based; use --binary for raw "
            "bytes)",
            std::isprint(c) ? absl::StrFormat("'%c'", c) : absl::StrFormat("byte 0x%02x", c), i);
        return false;
      }
      hex.push_back(static_cast<char>(c));
    }
    if (hex.size() % 2 != 0) {
      error = absl::StrFormat("input is not hex: odd number of hex digits (%d)", hex.size());
      return false;
    }
    ParseHex(hex, out);  // digits and length checked above
  }
  if (out.empty()) {
    error = "no input: expected a frame on stdin";
    return false;
  }
  return true;
}

bool RequireNoPositional(const Args& a, size_t n, Usage& u) {
  return a.positional.size() <= n || u.Fail("unexpected argument '" + a.positional[n] + "'");
}

// ---- Commands.

std::string RangeText(VersionRange r) {
  if (r.empty()) return "none";
  if (r.lo == r.hi) return absl::StrFormat("%d", r.lo);
  return absl::StrFormat("%d-%d", r.lo, r.hi);
}

// "2.4", "<=2.2" (the oldest release imported), "-" (never stable), from a release span.
std::string FirstRelease(const VersionReleases& r) {
  if (r.first == nullptr) return "-";
  return r.or_earlier ? absl::StrCat("<=", r.first) : std::string(r.first);
}

// The Kafka releases that have an API at all (unstable versions included): "<=2.2-4.4",
// "2.8-3.9", "4.4".
std::string ApiReleases(const ApiInfo& api) {
  const ReleaseSpan span = ApiReleaseSpan(api);
  if (span.first == nullptr || span.last == nullptr) return "-";
  if (!span.or_earlier && std::string_view(span.first) == span.last) return span.first;
  return absl::StrCat(span.or_earlier ? "<=" : "", span.first, "-", span.last);
}

// One line per version of one API: the releases that have it and what it is today.
int ApiVersionsTable(const ApiInfo& api, std::ostream& out) {
  const VersionRange all = api.request_versions();
  const VersionRange cur = api.current_versions();
  out << absl::StrFormat("%d %s%s\n", api.api_key, api.name,
                         *api.formerly != '\0' ? absl::StrCat(" (formerly ", api.formerly, ")")
                                                : std::string());
  out << absl::StrFormat("%-8s %-8s %-7s %-7s %-12s %-8s %s\n", "version", "flexible", "req.hdr",
                         "resp.hdr", "first", "last", "status");
  for (int16_t v = all.lo; v <= all.hi; ++v) {
    const VersionReleases* r = api.ReleasesOf(v);
    std::string status = cur.Contains(v) ? "current" : "removed";
    if (r != nullptr && r->first == nullptr) {
      status = absl::StrCat(status, ", unstable (", r->seen, "-", r->last, ")");
    } else if (r != nullptr && r->seen != nullptr) {
      status = absl::StrCat(status, " (unstable in ", r->seen, ")");
    }
    if (cur.Contains(v) && api.latest_unstable() && v == all.hi) status = "current, unstable";
    std::string line = absl::StrFormat(
        "%-8d %-8s %-7d %-7d %-12s %-8s %s", v, api.IsFlexible(v) ? "yes" : "no",
        RequestHeaderVersion(api.api_key, v), ResponseHeaderVersion(api.api_key, v),
        r != nullptr ? FirstRelease(*r) : "?", r != nullptr ? r->last : "?", status);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
  }
  return kExitOk;
}

int Apis(const Args& a, std::ostream& out, Usage& u) {
  if (a.positional.size() == 1) {
    const ApiInfo* api = nullptr;
    if (!ResolveApi(a.positional[0], api, u)) return kExitUsage;
    return ApiVersionsTable(*api, out);
  }
  if (!RequireNoPositional(a, 1, u)) return kExitUsage;
  out << absl::StrFormat("%-4s %-37s %-9s %-9s %-9s %-9s %-10s %s\n", "key", "name", "request",
                         "response", "flexible", "removed", "kafka", "notes");
  for (const ApiInfo& api : AllApis()) {
    const VersionRange req = api.request_versions();
    const VersionRange cur = api.current_versions();
    std::string removed = "-";
    if (cur.empty()) {
      removed = RangeText(req);
    } else if (cur.lo > req.lo) {
      removed = RangeText(VersionRange{req.lo, static_cast<int16_t>(cur.lo - 1)});
    }
    const int16_t flex = api.first_flexible_version();
    std::vector<std::string> notes;
    if (api.latest_unstable()) notes.push_back(absl::StrFormat("v%d unstable", req.hi));
    if (cur.empty()) {
      const VersionReleases* r = api.ReleasesOf(req.hi);
      notes.push_back(absl::StrCat("API removed; last in Kafka ", r != nullptr ? r->last : "?"));
    } else if (cur.lo > req.lo) {
      const VersionReleases* r = api.ReleasesOf(static_cast<int16_t>(cur.lo - 1));
      notes.push_back(absl::StrFormat("v%s last in Kafka %s", removed, r != nullptr ? r->last : "?"));
    }
    if (*api.formerly != '\0') notes.push_back(absl::StrCat("formerly ", api.formerly));
    std::string line = absl::StrFormat(
        "%-4d %-37s %-9s %-9s %-9s %-9s %-10s %s", api.api_key, api.name, RangeText(req),
        RangeText(api.response_versions()), flex < 0 ? "none" : absl::StrFormat("%d+", flex),
        removed, ApiReleases(api), absl::StrJoin(notes, "; "));
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
  }
  return kExitOk;
}

int Minimal(const Args& a, std::ostream& out, std::ostream& err, Usage& u) {
  if (a.positional.size() != 3) {
    u.Fail("expected <api key|name> <version|max> <request|response>");
    return kExitUsage;
  }
  const ApiInfo* api = nullptr;
  Direction dir = Direction::kRequest;
  int16_t version = 0;
  if (!ResolveApi(a.positional[0], api, u) || !ResolveDirection(a.positional[2], dir, u) ||
      !ResolveVersion(*api, dir, a.positional[1], version, u)) {
    return kExitUsage;
  }
  const auto frame = EncodeMinimalFrame(*api, version, dir);
  if (!frame.ok()) {
    err << "kwire minimal: " << frame.status().message() << "\n";
    return kExitFailure;
  }
  out << HexString(*frame) << "\n";
  return kExitOk;
}

// The frame commands' shared options.
struct FrameInput {
  Direction dir = Direction::kRequest;
  const ApiInfo* api = nullptr;    // --api
  std::optional<int16_t> version;  // --version
  bool version_auto = false;       // --version auto (responses): the version that decodes
  uint32_t quirks = 0;
  RecordsMode records = RecordsMode::kValidate;  // --records
  bool json = false;                             // --json (decode)
  std::vector<uint8_t> bytes;
};

// Parses <request|response> --api --version --quirks (false: usage error in `u`).
bool ParseFrameArgs(const Args& a, FrameInput& f, Usage& u) {
  if (a.positional.empty()) return u.Fail("expected 'request' or 'response'");
  if (!RequireNoPositional(a, 1, u) || !ResolveDirection(a.positional[0], f.dir, u)) {
    return false;
  }
  if (auto api = a.Get("api"); api && !ResolveApi(*api, f.api, u)) return false;
  if (auto v = a.Get("version"); v && *v == "auto") {
    if (f.dir == Direction::kRequest) {
      return u.Fail("--version auto is for responses (a request's header names its version)");
    }
    if (f.api == nullptr) return u.Fail("--version auto needs --api");
    f.version_auto = true;
  } else if (v) {
    int16_t version = 0;
    if (f.api == nullptr) {
      auto n = ParseNumber(*v);
      if (!n || *n < INT16_MIN || *n > INT16_MAX) return u.Fail("bad --version '" + *v + "'");
      version = static_cast<int16_t>(*n);
    } else if (!ResolveVersion(*f.api, f.dir, *v, version, u)) {
      return false;
    }
    f.version = version;
  }
  if (f.dir == Direction::kResponse && (f.api == nullptr || (!f.version && !f.version_auto)) &&
      !a.Get("requests")) {
    return u.Fail(
        "a response needs --api and --version, or --requests (its header does not name them)");
  }
  if (a.Get("requests") && (f.api != nullptr || f.version || f.version_auto)) {
    return u.Fail("--requests and --api/--version exclude each other");
  }
  if (auto q = a.Get("quirks"); q && !ResolveQuirks(*q, f.quirks, u)) return false;
  return ResolveRecords(a, f.records, u);
}

// Parses the arguments and reads stdin. Returns an exit status to stop with, or -1.
// --vector FILE:LINE: the frame of one conformance vector (conformance/FORMAT.md), with
// its direction, API and version, instead of stdin and <request|response> --api --version
// (what `kwire conformance --testee` prints beside a failure). Returns an exit status to
// stop with, or -1.
int ReadVectorInput(const Args& a, const std::string& spec, std::ostream& err, const char* cmd,
                    FrameInput& f, Usage& u) {
  if (!a.positional.empty() || a.Get("api") || a.Get("version") || a.Get("requests")) {
    u.Fail("--vector names the direction, API and version: give none of them");
    return kExitUsage;
  }
  const size_t colon = spec.rfind(':');
  const std::optional<long> line =
      colon == std::string::npos ? std::nullopt : ParseNumber(spec.substr(colon + 1));
  if (!line || *line < 1) {
    u.Fail("--vector takes FILE:LINE (a line of a conformance/vectors/*.jsonl file)");
    return kExitUsage;
  }
  const std::string file = spec.substr(0, colon);
  std::ifstream in(file);
  std::string text;
  for (long i = 0; i < *line && std::getline(in, text);) ++i;
  Json record = Json::parse(text, nullptr, false);
  if (!in || record.is_discarded() || !record.is_object() || !record.contains("frame") ||
      !record["frame"].is_string()) {
    err << "kwire " << cmd << ": " << spec << ": not a vector line with a \"frame\"\n";
    return kExitFailure;
  }
  f.dir = record.value("direction", std::string()) == "response" ? Direction::kResponse
                                                                   : Direction::kRequest;
  f.api = FindApi(static_cast<int16_t>(record.value("api_key", -1)));
  if (f.api != nullptr) f.version = static_cast<int16_t>(record.value("version", 0));
  const std::string hex = record["frame"].get<std::string>();
  if (!ParseHex(hex, f.bytes)) {
    err << "kwire " << cmd << ": " << spec << ": the frame is not hex\n";
    return kExitFailure;
  }
  if (auto q = a.Get("quirks"); q && !ResolveQuirks(*q, f.quirks, u)) return kExitUsage;
  if (!ResolveRecords(a, f.records, u)) return kExitUsage;
  err << "kwire " << cmd << ": " << record.value("id", spec)
      << (record.contains("mutation") ? " (" + record["mutation"].get<std::string>() + ")" : "")
      << "\n";
  return -1;
}

int ReadFrameInput(const Args& a, std::istream& in, std::ostream& err, const char* cmd,
                   FrameInput& f, Usage& u) {
  if (auto vector = a.Get("vector")) return ReadVectorInput(a, *vector, err, cmd, f, u);
  if (!ParseFrameArgs(a, f, u)) return kExitUsage;
  std::string error;
  if (!ReadInput(in, a.flags.count("binary") > 0, f.bytes, error)) {
    err << "kwire " << cmd << ": " << error << "\n";
    return kExitFailure;
  }
  return -1;
}

// For requests: checks that the header agrees with --api / --version.
bool CheckRequestHeader(const FrameInput& f, int16_t key, int16_t version, std::ostream& err,
                        const char* cmd) {
  if ((f.api != nullptr && f.api->api_key != key) || (f.version && *f.version != version)) {
    const ApiInfo* actual = FindApi(key);
    err << "kwire " << cmd << ": "
        << absl::StrFormat("the frame is %s v%d (api key %d), but --api/--version say %s v%d\n",
                           actual ? actual->name : "?", version, key,
                           f.api ? f.api->name : (actual ? actual->name : "?"),
                           f.version.value_or(version));
    return false;
  }
  return true;
}

// ---- Streams of frames.

// One frame of an input stream: its bytes and the offset of its first byte in the stream.
struct StreamFrame {
  size_t at = 0;
  std::span<const uint8_t> bytes;
};

// Splits `in` into size-prefixed frames (SplitFrame). When the first frame is not whole
// (size prefix cut, negative, too large or past the input), the whole input is the one
// "frame", so that the decoder reports the fault precisely. When a later one is not,
// `error` says why and `frames` holds the whole ones before it.
std::vector<StreamFrame> SplitStream(std::span<const uint8_t> in, std::string& error) {
  std::vector<StreamFrame> frames;
  size_t pos = 0;
  while (pos < in.size()) {
    const SplitResult r = SplitFrame(in.subspan(pos));
    if (r.status == SplitResult::kFrame) {
      frames.push_back({pos, r.frame});
      pos += r.frame.size();
      continue;
    }
    if (frames.empty()) {
      frames.push_back({0, in});
    } else if (r.status == SplitResult::kNeedMore) {
      error = absl::StrFormat(
          "the stream ends inside frame %d: %d bytes from byte %d, %d more needed",
          frames.size() + 1, in.size() - pos, pos, r.need);
    } else {
      error = absl::StrFormat("frame %d at byte %d: %s", frames.size() + 1, pos,
                              r.error.ToString());
    }
    break;
  }
  return frames;
}

// "frame 2 at byte 140: " for streams of several frames, "" for one.
std::string FramePrefix(const std::vector<StreamFrame>& frames, size_t i) {
  return frames.size() > 1 ? absl::StrFormat("frame %d at byte %d: ", i + 1, frames[i].at) : "";
}

// --requests FILE: responses matched by correlation id in any order; as many requests as
// the file holds (its size bounds them).
constexpr Correlator::Options kFileRequests{.max_pending = SIZE_MAX, .in_order = false};

// What each response of a stream answers, from the requests in --requests FILE: how
// `kwire decode/explain response` types them (codec/protocol/correlator.h, by correlation
// id in any order; a response settles its request).
bool ReadRequests(const std::string& file, bool binary, Correlator& requests,
                  std::string& error) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    error = "cannot read --requests file " + file;
    return false;
  }
  std::vector<uint8_t> bytes;
  if (!ReadInput(in, binary, bytes, error)) {
    error = file + ": " + error;
    return false;
  }
  std::string split_error;
  const std::vector<StreamFrame> frames = SplitStream(bytes, split_error);
  if (!split_error.empty()) {
    error = absl::StrFormat("%s: %s", file, split_error);
    return false;
  }
  for (size_t i = 0; i < frames.size(); ++i) {
    if (absl::Status added = requests.AddRequestFrame(frames[i].bytes); !added.ok()) {
      error = absl::StrFormat("%s: request frame %d: %s", file, i + 1, added.message());
      return false;
    }
  }
  return true;
}

// The FrameOptions of the frame commands' --quirks and --records.
FrameOptions FrameOptionsOf(const FrameInput& f) {
  FrameOptions options;
  options.decode.quirks = f.quirks;
  options.records_mode = f.records;
  return options;
}

// --version auto: the newest response version of `key` at which `bytes` decodes cleanly;
// when none does, the one that reads furthest (its error is then the frame's). `note`
// says which versions decode ("--version auto: ...").
int16_t AutoResponseVersion(const FrameInput& f, int16_t key, std::span<const uint8_t> bytes,
                            std::string& note) {
  const FrameOptions options = FrameOptionsOf(f);
  const ApiInfo& api = *FindApi(key);
  const std::vector<int16_t> good = ResponseVersionsThatDecode(bytes, key, options);
  if (!good.empty()) {
    std::vector<std::string> names;
    for (int16_t v : good) names.push_back(absl::StrFormat("v%d", v));
    note = absl::StrFormat("--version auto: %sResponse %s %s; read as v%d", api.name,
                           good.size() == 1 ? "decodes at" : "decodes at each of",
                           absl::StrJoin(names, ", "), good.back());
    return good.back();
  }
  const VersionRange valid = api.response_versions();
  int16_t best = valid.hi;
  size_t furthest = 0;
  for (int v = valid.hi; v >= valid.lo; --v) {
    const auto r = DecodeResponseFrame(bytes, key, static_cast<int16_t>(v), options);
    const std::optional<Error> e = ErrorFromStatus(r.status());
    if (e && e->offset > furthest) {
      furthest = e->offset;
      best = static_cast<int16_t>(v);
    }
  }
  note = absl::StrFormat("--version auto: no version of %sResponse (v%d-v%d) decodes this "
                         "frame; v%d reads furthest",
                         api.name, valid.lo, valid.hi, best);
  return best;
}

// For responses: the (api, version) of frame `bytes`, from --api/--version (or --version
// auto: `note` says what it chose) or the --requests correlator.
bool ResponseApi(const FrameInput& f, Correlator* requests, std::span<const uint8_t> bytes,
                 int16_t& key, int16_t& version, std::string& error, std::string& note) {
  if (requests == nullptr) {
    key = f.api->api_key;
    version = f.version_auto ? AutoResponseVersion(f, key, bytes, note) : *f.version;
    return true;
  }
  absl::StatusOr<Correlator::Match> match = requests->TakeResponseFrame(bytes);
  if (!match.ok()) {
    error = match.status().code() == absl::StatusCode::kNotFound
                ? absl::StrFormat("no request with correlation id %d in --requests (or one "
                                  "answered by an earlier response)",
                                  *PeekResponseCorrelationId(bytes))
                : std::string(match.status().message());
    return false;
  }
  key = match->request.api_key;
  version = match->request.api_version;
  return true;
}

// The error of a frame that failed to decode with `status`, as printed: with the count of
// the array element it failed in (diagnose.h's ErrorInContext, from the frame's
// explanation).
std::string FailureText(const FrameInput& f, std::span<const uint8_t> bytes, int16_t key,
                        int16_t version, const absl::Status& status) {
  PrintOptions po;
  po.decode.quirks = f.quirks;
  po.records_mode = f.records;
  const FrameExplanation ex = f.dir == Direction::kRequest
                                  ? ExplainRequestFrame(bytes, po)
                                  : ExplainResponseFrame(bytes, key, version, po);
  if (ex.status != status) return std::string(status.message());
  return ErrorInContext(ex).ToString();
}

// After a frame failed: the hints of codec/harness/diagnose.h on `err`, one line each
// ("kwire decode: hint: ..."). `following`: the stream after the frame.
void PrintHints(const FrameInput& f, const char* cmd, const std::string& prefix,
                std::span<const uint8_t> bytes, std::span<const uint8_t> following,
                int16_t key, int16_t version, std::ostream& err) {
  DiagnoseOptions d;
  d.following = following;
  const FrameOptions options = FrameOptionsOf(f);
  const std::vector<DecodeHint> hints =
      f.dir == Direction::kRequest ? DiagnoseRequestFrame(bytes, options, d)
                                   : DiagnoseResponseFrame(bytes, key, version, options, d);
  for (const DecodeHint& h : hints) {
    err << "kwire " << cmd << ": " << prefix << "hint: " << h.text;
    if (h.kind == DecodeHint::Kind::kVersion && f.dir == Direction::kResponse &&
        !f.version_auto && f.api != nullptr) {
      err << " (--version auto reads it so)";
    }
    err << "\n";
  }
}

// Reads --requests (if given) into `requests` (`use` points at it then, else null).
// Returns an exit status to stop with, or -1.
int LoadRequests(const Args& a, const FrameInput& f, std::ostream& err, const char* cmd,
                 Correlator& requests, Correlator*& use, Usage& u) {
  use = nullptr;
  auto file = a.Get("requests");
  if (!file) return -1;
  if (f.dir != Direction::kResponse) {
    u.Fail("--requests is for responses");
    return kExitUsage;
  }
  std::string error;
  if (!ReadRequests(*file, a.flags.count("binary") > 0, requests, error)) {
    err << "kwire " << cmd << ": " << error << "\n";
    return kExitFailure;
  }
  use = &requests;
  return -1;
}

// The line after a refused request's refusals: what the broker does with the request.
std::string RefusalSummary(const BrokerRead& read) {
  if (const Refusal* whole = read.WholeRequest()) {
    return absl::StrFormat("a broker reads this request and answers every partition with %s "
                           "(%d), appending none",
                           whole->error_name, whole->error_code);
  }
  size_t answered = 0;
  for (const Refusal& r : read.refusals) answered += !r.kafka_appends;
  const size_t own = read.refusals.size() - answered;
  std::string s;
  if (answered > 0) {
    s = absl::StrFormat("a broker reads this request and answers %d partition%s with the error "
                        "code%s above, appending the others",
                        answered, answered == 1 ? "" : "s", answered == 1 ? "" : "s");
  }
  if (own > 0) {
    absl::StrAppend(&s, s.empty() ? "" : "; ",
                    absl::StrFormat("kwire refuses %d partition%s that Kafka 4.4 appends (stricter "
                                    "on purpose: codec/records/README.md)",
                                    own, own == 1 ? "" : "s"));
  }
  return s;
}

// What became of one frame of a stream.
enum class FrameVerdict { kRead, kRefused, kFailed };

// The JSON of a broker's refusals (codec/protocol/refusal.h), for --json.
Json RefusalsJson(const std::vector<Refusal>& refusals) {
  Json a = Json::array();
  for (const Refusal& r : refusals) {
    Json j = RefusalJson(r);
    j["detail"] = r.fault.detail;
    j["whole_request"] = r.whole_request;
    j["kafka_appends"] = r.kafka_appends;
    j["source"] = r.source;
    a.push_back(std::move(j));
  }
  return a;
}

// Decodes one frame of the stream; prints its re-encoding and a summary. kRead when it
// decodes and re-encodes to the same bytes, kRefused when it does but a broker refuses
// part of it (each refusal on `err`).
FrameVerdict DecodeOne(const FrameInput& f, Correlator* requests,
                       std::span<const uint8_t> bytes, std::span<const uint8_t> following,
                       const std::string& prefix, bool quiet, std::ostream& out,
                       std::ostream& err) {
  const FrameOptions options = FrameOptionsOf(f);
  absl::StatusOr<std::vector<uint8_t>> again;
  absl::StatusOr<Json> json = Json();
  std::string what;
  std::vector<Refusal> refusals;
  std::string refused_lines;
  if (f.dir == Direction::kRequest) {
    auto read = ReadRequestAsBroker(bytes, options);
    if (!read.ok()) {
      err << "kwire decode: " << prefix << FailureText(f, bytes, 0, 0, read.status()) << "\n";
      PrintHints(f, "decode", prefix, bytes, following, 0, 0, err);
      return FrameVerdict::kFailed;
    }
    // The verdict's lines, printed before anything can fail below (a re-encoding that
    // differs under --quirks is reported, and the refusals with it); even with --quiet:
    // they are the verdict, as errors are.
    for (const Refusal& r : read->refusals) refused_lines += prefix + "refused: " + r.ToString() + "\n";
    if (read->refused()) refused_lines += prefix + RefusalSummary(*read) + "\n";
    refusals = std::move(read->refusals);
    const RequestFrame* frame = &read->frame;
    if (!CheckRequestHeader(f, frame->api_key(), frame->api_version(), err, "decode")) {
      return FrameVerdict::kFailed;
    }
    what = absl::StrFormat("%s v%d, request header v%d", frame->body.spec().name,
                           frame->api_version(), frame->header_version);
    again = EncodeRequestFrame(frame->header, frame->body, EncodeOptions{f.quirks});
    if (f.json) json = RequestFrameToJson(*frame, ToJsonOptions::ForQuirks(f.quirks));
  } else {
    int16_t key = 0, version = 0;
    std::string error, note;
    if (!ResponseApi(f, requests, bytes, key, version, error, note)) {
      err << "kwire decode: " << prefix << error << "\n";
      return FrameVerdict::kFailed;
    }
    auto frame = DecodeResponseFrame(bytes, key, version, options);
    if (!note.empty() && (!quiet || !frame.ok())) err << "kwire decode: " << prefix << note << "\n";
    if (!frame.ok()) {
      err << "kwire decode: " << prefix << FailureText(f, bytes, key, version, frame.status())
          << "\n";
      PrintHints(f, "decode", prefix, bytes, following, key, version, err);
      return FrameVerdict::kFailed;
    }
    what = ApiVersionsFallback(key, version, frame->body_version)
               ? absl::StrFormat("%s v%d (ApiVersions v0 fallback, KIP-511: the request was "
                                 "v%d), response header v%d",
                                 frame->body.spec().name, frame->body_version, version,
                                 frame->header_version)
               : absl::StrFormat("%s v%d, response header v%d", frame->body.spec().name,
                                 version, frame->header_version);
    again = EncodeResponseFrame(frame->header, key, frame->body_version, frame->body,
                                EncodeOptions{f.quirks});
    if (f.json) json = ResponseFrameToJson(*frame, key, version, ToJsonOptions::ForQuirks(f.quirks));
  }
  if (!again.ok()) {
    err << "kwire decode: " << prefix << what
        << " decoded, but re-encoding failed: " << again.status().message() << "\n";
    return FrameVerdict::kFailed;
  }
  if (!json.ok()) {
    err << "kwire decode: " << prefix << what
        << " decoded, but has no JSON form: " << json.status().message() << "\n";
    return FrameVerdict::kFailed;
  }
  if (f.json) {
    (*json)["frame"] = HexString(bytes);
    if (!refusals.empty()) (*json)["refusals"] = RefusalsJson(refusals);
    out << json->dump() << "\n";
  } else {
    out << HexString(*again) << "\n";
  }
  if (!std::equal(again->begin(), again->end(), bytes.begin(), bytes.end())) {
    size_t i = 0;
    while (i < again->size() && i < bytes.size() && (*again)[i] == bytes[i]) ++i;
    err << "kwire decode: " << prefix << what
        << absl::StrFormat(
               " decoded, but re-encodes differently (%d bytes in, %d out; first "
               "difference at byte %d): the input is not canonical%s\n",
               bytes.size(), again->size(), i, f.quirks != 0 ? " (accepted under --quirks)" : "");
    err << refused_lines;
    return FrameVerdict::kFailed;
  }
  if (!quiet) err << prefix << what << absl::StrFormat(", %d bytes, re-encoding identical\n", bytes.size());
  err << refused_lines;
  return refusals.empty() ? FrameVerdict::kRead : FrameVerdict::kRefused;
}

int Decode(const Args& a, std::istream& in, std::ostream& out, std::ostream& err, Usage& u) {
  FrameInput f;
  if (int rc = ReadFrameInput(a, in, err, "decode", f, u); rc >= 0) return rc;
  f.json = a.flags.count("json") > 0;
  Correlator requests(kFileRequests);
  Correlator* use = nullptr;
  if (int rc = LoadRequests(a, f, err, "decode", requests, use, u); rc >= 0) return rc;
  std::string split_error;
  const std::vector<StreamFrame> frames = SplitStream(f.bytes, split_error);
  const bool quiet = a.flags.count("quiet") > 0;
  size_t good = 0, refused = 0;
  for (size_t i = 0; i < frames.size(); ++i) {
    const size_t next = frames[i].at + frames[i].bytes.size();
    const std::span<const uint8_t> following =
        std::span<const uint8_t>(f.bytes).subspan(std::min(next, f.bytes.size()));
    switch (DecodeOne(f, use, frames[i].bytes, following, FramePrefix(frames, i), quiet, out,
                      err)) {
      case FrameVerdict::kRead: ++good; break;
      case FrameVerdict::kRefused: ++good; ++refused; break;
      case FrameVerdict::kFailed: break;
    }
  }
  if (!split_error.empty()) err << "kwire decode: " << split_error << "\n";
  if (frames.size() > 1 && !quiet) {
    err << absl::StrFormat("%d frames, %d decoded and re-encoded identically", frames.size(),
                           good)
        << (refused > 0 ? absl::StrFormat(" (%d of them refused in part by a broker)", refused)
                        : std::string())
        << "\n";
  }
  if (good != frames.size() || !split_error.empty()) return kExitFailure;
  return refused > 0 ? kExitRefused : kExitOk;
}

// The JSON objects of `text`: the whole text when it is one JSON value, else one per
// non-blank line (JSON Lines). Each with its 1-based line number.
struct JsonInput {
  size_t line;
  std::string text;
};
std::vector<JsonInput> SplitJsonInput(const std::string& text) {
  if (Json::accept(text)) return {{1, text}};
  std::vector<JsonInput> out;
  size_t line = 1, start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string piece = text.substr(start, end - start);
    if (piece.find_first_not_of(" \t\r") != std::string::npos) out.push_back({line, piece});
    ++line;
    start = end + 1;
  }
  return out;
}

int Encode(const Args& a, std::istream& in, std::ostream& out, std::ostream& err, Usage& u) {
  if (!RequireNoPositional(a, 0, u)) return kExitUsage;
  const bool binary = a.flags.count("binary") > 0;
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::vector<JsonInput> inputs = SplitJsonInput(text);
  if (inputs.empty()) {
    err << "kwire encode: no input: expected JSON objects on stdin (kwire encode --help)\n";
    return kExitFailure;
  }
  size_t good = 0;
  for (const JsonInput& input : inputs) {
    absl::StatusOr<std::vector<uint8_t>> frame;
    try {
      frame = FrameFromJson(Json::parse(input.text));
    } catch (const Json::parse_error& e) {
      // e.g. "[json.exception.parse_error.101] parse error at line 1, column 40: syntax
      // error while parsing value - invalid string: ...": keep from "parse error".
      const std::string what = e.what();
      const size_t at = what.find("parse error");
      frame = absl::InvalidArgumentError(
          "not valid JSON: " + (at == std::string::npos ? what : what.substr(at)));
    }
    if (!frame.ok()) {
      err << "kwire encode: line " << input.line << ": " << frame.status().message() << "\n";
      continue;
    }
    if (binary) {
      out.write(reinterpret_cast<const char*>(frame->data()),
                static_cast<std::streamsize>(frame->size()));
    } else {
      out << HexString(*frame) << "\n";
    }
    ++good;
  }
  return good == inputs.size() ? kExitOk : kExitFailure;
}

// Writes `text` to the file `path` ("-": to `out`); false, with a message, when it cannot.
bool WriteText(const std::string& path, const std::string& text, std::ostream& out,
               std::ostream& err, const char* cmd) {
  if (path == "-") {
    out << text;
    return true;
  }
  std::ofstream o(path, std::ios::binary | std::ios::trunc);
  o << text;
  o.close();
  if (!o) err << "kwire " << cmd << ": cannot write " << path << "\n";
  return static_cast<bool>(o);
}

int Explain(const Args& a, std::istream& in, std::ostream& out, std::ostream& err, Usage& u) {
  FrameInput f;
  if (int rc = ReadFrameInput(a, in, err, "explain", f, u); rc >= 0) return rc;
  size_t width = 120;
  if (auto w = a.Get("width")) {
    auto n = ParseNumber(*w);
    if (!n || *n < 0 || *n > 100000) {
      u.Fail("--width takes a number of columns (0: no limit), not '" + *w + "'");
      return kExitUsage;
    }
    width = static_cast<size_t>(*n);
  }
  ExplainView shown;  // --no-bytes, --depth, --path (explain_view.h)
  shown.bytes = a.flags.count("no-bytes") == 0;
  if (auto d = a.Get("depth")) {
    auto n = ParseNumber(*d);
    if (!n || *n < 0 || *n > 10000) {
      u.Fail("--depth takes a number of tree levels (0: the root alone), not '" + *d + "'");
      return kExitUsage;
    }
    shown.depth = static_cast<int>(*n);
  }
  shown.path = a.Get("path").value_or("");
  if ((!shown.bytes || shown.depth || !shown.path.empty()) && a.Get("html")) {
    u.Fail("--no-bytes, --depth and --path shape the text; --html writes the whole page");
    return kExitUsage;
  }
  Correlator requests(kFileRequests);
  Correlator* use = nullptr;
  if (int rc = LoadRequests(a, f, err, "explain", requests, use, u); rc >= 0) return rc;
  PrintOptions options;
  options.decode.quirks = f.quirks;
  options.records_mode = f.records;
  options.show_secrets = a.flags.count("show-secrets") > 0;
#if KWIRE_HAVE_RECORDS_PRINT
  options.records = &PrintRecordBatches;  // RecordBatch v2 / message set rows
#endif
  const std::optional<std::string> html_file = a.Get("html");  // --html: a page, no text
  std::vector<html::FrameView> pages;
  std::string split_error;
  const std::vector<StreamFrame> frames = SplitStream(f.bytes, split_error);
  size_t good = 0;
  for (size_t i = 0; i < frames.size(); ++i) {
    const std::span<const uint8_t> bytes = frames[i].bytes;
    const std::string prefix = FramePrefix(frames, i);
    if (frames.size() > 1 && !html_file) {
      out << (i > 0 ? "\n" : "")
          << absl::StrFormat("== frame %d of %d, at byte %d of the stream ==\n", i + 1,
                             frames.size(), frames[i].at);
    }
    FrameExplanation ex;
    int16_t key = 0, version = 0;
    html::FrameView view;
    view.dir = f.dir;
    if (frames.size() > 1) {
      view.heading = absl::StrFormat("frame %d of %d, at byte %d of the stream", i + 1,
                                     frames.size(), frames[i].at);
    }
    if (f.dir == Direction::kRequest) {
      ex = ExplainRequestFrame(bytes, options);
    } else {
      std::string error, note;
      if (!ResponseApi(f, use, bytes, key, version, error, note)) {
        err << "kwire explain: " << prefix << error << "\n";
        continue;
      }
      if (!note.empty()) err << "kwire explain: " << prefix << note << "\n";
      ex = ExplainResponseFrame(bytes, key, version, options);
      view.api_key = key;
      view.api_version = version;
    }
    if (a.flags.count("lengths") > 0) AddValueLengthRows(ex, true);  // --lengths
    if (html_file) {
      view.ex = ex;
      pages.push_back(std::move(view));
    } else {
      const absl::StatusOr<std::string> text = RenderExplainView(ex, shown, width);
      if (!text.ok()) {  // --path names no row of this frame: exit 1
        out << ex.title << "\n";
        err << "kwire explain: " << prefix << text.status().message() << "\n";
        if (ex.status.ok()) continue;
      } else {
        out << *text;
      }
    }
    if (!ex.status.ok()) {
      err << "kwire explain: " << prefix << ErrorInContext(ex).ToString() << "\n";
      const size_t next = frames[i].at + bytes.size();
      PrintHints(f, "explain", prefix, bytes,
                 std::span<const uint8_t>(f.bytes).subspan(std::min(next, f.bytes.size())), key,
                 version, err);
      continue;
    }
    if (f.dir == Direction::kRequest) {
      const std::optional<RequestIds> ids = PeekRequestIds(bytes);
      if (ids && !CheckRequestHeader(f, ids->api_key, ids->api_version, err, "explain")) continue;
    }
    ++good;
  }
  if (!split_error.empty()) err << "kwire explain: " << split_error << "\n";
  if (html_file && !WriteText(*html_file, html::ExplainPage(pages), out, err, "explain")) {
    return kExitFailure;
  }
  return good == frames.size() && split_error.empty() ? kExitOk : kExitFailure;
}

int Site(const Args& a, std::ostream& out, std::ostream& err, Usage& u) {
  if (a.positional.size() != 1) {
    u.Fail("expected one OUTDIR");
    return kExitUsage;
  }
  html::SiteOptions options;
  options.out_dir = a.positional[0];
  options.all_versions = a.flags.count("all-versions") > 0;
  const absl::StatusOr<html::SiteResult> r = html::WriteSite(options);
  if (!r.ok()) {
    err << "kwire site: " << r.status().message() << "\n";
    return kExitFailure;
  }
  for (const std::string& failure : r->failures) err << "kwire site: " << failure << "\n";
  out << absl::StrFormat("kwire site: %d pages (%d bytes) in %s\n", r->pages, r->bytes,
                         options.out_dir);
  return r->failures.empty() ? kExitOk : kExitFailure;
}

namespace fs = std::filesystem;

std::string DefaultVectorsDir() {
  if (const char* env = std::getenv("KWIRE_CONFORMANCE_DIR"); env != nullptr && *env != 0) {
    return env;
  }
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed =
        exe.parent_path() / ".." / "share" / "kwire" / "conformance" / "vectors";
    if (fs::is_directory(installed, ec)) return fs::weakly_canonical(installed, ec).string();
  }
#ifdef KWIRE_INSTALL_VECTORS_DIR
  if (fs::is_directory(KWIRE_INSTALL_VECTORS_DIR, ec)) return KWIRE_INSTALL_VECTORS_DIR;
#endif
#ifdef KWIRE_SOURCE_VECTORS_DIR
  if (fs::is_directory(KWIRE_SOURCE_VECTORS_DIR, ec)) return KWIRE_SOURCE_VECTORS_DIR;
#endif
  return "";
}

bool WriteFile(const std::string& path, const std::string& text, std::ostream& err) {
  std::ofstream o(path, std::ios::binary | std::ios::trunc);
  o << text;
  o.close();
  if (!o) {
    err << "kwire conformance: cannot write " << path << "\n";
    return false;
  }
  return true;
}

// `kwire conformance --testee CMD` / `--list`: the JSON Lines vectors against a testee.
int ConformanceTestee(const Args& a, const std::string& dir, std::ostream& out,
                      std::ostream& err, Usage& u) {
  conformance::TesteeOptions o;
  o.dir = dir;
  if (auto t = a.Get("testee")) o.command = *t;
  // A comma-separated option value; empty items (`--api ''`, `a,,b`) are usage errors.
  bool bad_list = false;
  auto list = [&](const std::string& s) {
    std::vector<std::string> items = absl::StrSplit(s, ',');
    for (const std::string& item : items) bad_list |= item.empty();
    return items;
  };
  if (auto c = a.Get("category")) {
    for (const std::string& name : list(*c)) {
      const auto& all = conformance::Categories();
      if (std::find(all.begin(), all.end(), name) == all.end()) {
        u.Fail("unknown category '" + name + "' (minimal, rich, negative, records, kip511, java)");
        return kExitUsage;
      }
      o.categories.insert(name);
    }
  }
  if (auto k = a.Get("api")) {
    for (const std::string& x : list(*k)) {
      const ApiInfo* api = nullptr;
      if (x.empty()) continue;
      if (!ResolveApi(x, api, u)) return kExitUsage;
      o.api_keys.insert(api->api_key);
    }
  }
  if (auto v = a.Get("version")) {
    for (const std::string& x : list(*v)) {
      if (x.empty()) continue;
      auto n = ParseNumber(x);
      if (!n || *n < 0 || *n > INT16_MAX) {
        u.Fail("--version takes version numbers, not '" + x + "'");
        return kExitUsage;
      }
      o.versions.insert(static_cast<int16_t>(*n));
    }
  }
  if (bad_list) {
    u.Fail("--category, --api and --version take comma-separated values, none empty");
    return kExitUsage;
  }
  if (auto d = a.Get("direction")) {
    Direction dir_value;
    if (!ResolveDirection(*d, dir_value, u)) return kExitUsage;
    o.request = dir_value == Direction::kRequest;
  }
  if (auto p = a.Get("id")) {
    if (p->empty()) {
      u.Fail("--id takes a non-empty prefix");
      return kExitUsage;
    }
    o.id_prefixes.push_back(*p);
  }
  o.lenient = a.flags.count("lenient") > 0;
  o.strict_errors = a.flags.count("strict-errors") > 0;
  o.keep_answers = a.Get("html").has_value();  // the page shows them
  if (auto t = a.Get("timeout")) {
    double seconds = 0;
    if (!absl::SimpleAtod(*t, &seconds) || !(seconds > 0) || seconds > 86400) {
      u.Fail("--timeout takes seconds (> 0), not '" + *t + "'");
      return kExitUsage;
    }
    o.timeout_seconds = seconds;
  }
  if (auto l = a.Get("testee-log")) o.log_file = *l;
  std::error_code ec;
  if (auto e = a.Get("expected-failures")) {
    if (!fs::is_regular_file(*e, ec)) {
      u.Fail("no such file: " + *e);
      return kExitUsage;
    }
    o.expected_failures = *e;
  }
  if (a.flags.count("list")) {
    std::vector<std::string> errors;
    const auto vectors = conformance::LoadJsonlVectors(o, errors);
    for (const std::string& e : errors) err << "kwire conformance: " << e << "\n";
    out << conformance::RenderTesteeList(vectors);
    return errors.empty() ? kExitOk : kExitFailure;
  }
  if (o.command.empty()) {
    u.Fail("--testee needs a command");
    return kExitUsage;
  }
  bool any_jsonl = false;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    any_jsonl |= it->path().extension() == ".jsonl";
  }
  if (!any_jsonl) {
    u.Fail("no *.jsonl vector files in " + dir);
    return kExitUsage;
  }
  // Report files are checked before the run, not found unwritable after it.
  for (const char* option : {"junit", "json", "html", "testee-log"}) {
    if (auto f = a.Get(option)) {
      std::ofstream probe(*f, std::ios::app);
      if (!probe) {
        u.Fail(absl::StrCat("--", option, ": cannot write ", *f));
        return kExitUsage;
      }
    }
  }
  out.flush();
  const conformance::TesteeReport report = conformance::RunTestee(o);
  out << conformance::RenderTesteeSummary(report);
  bool wrote = true;
  if (auto j = a.Get("junit")) wrote &= WriteFile(*j, conformance::RenderTesteeJUnit(report), err);
  if (auto j = a.Get("json")) wrote &= WriteFile(*j, conformance::RenderTesteeJson(report), err);
  if (auto h = a.Get("html")) wrote &= WriteFile(*h, html::TesteeReportPage(report), err);
  return report.ok() && wrote ? kExitOk : kExitFailure;
}

int Conformance(const Args& a, std::ostream& out, std::ostream& err, Usage& u) {
  if (!RequireNoPositional(a, 1, u)) return kExitUsage;
  const bool testee = a.Get("testee") || a.flags.count("list");
  if (!testee) {
    for (const char* only : {"category", "api", "version", "direction", "id", "timeout", "testee-log"}) {
      if (a.Get(only)) {
        u.Fail(std::string("--") + only + " needs --testee (or --list)");
        return kExitUsage;
      }
    }
    if (a.flags.count("lenient")) {
      u.Fail("--lenient needs --testee (or --list)");
      return kExitUsage;
    }
  }
  std::string dir = a.positional.empty() ? DefaultVectorsDir() : a.positional[0];
  if (dir.empty()) {
    u.Fail("no vector directory found; pass one (e.g. conformance/vectors)");
    return kExitUsage;
  }
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    u.Fail("not a directory: " + dir);
    return kExitUsage;
  }
  if (testee) return ConformanceTestee(a, dir, out, err, u);
  std::string expected;
  if (auto e = a.Get("expected-failures")) {
    expected = *e;
    if (!fs::is_regular_file(expected, ec)) {
      u.Fail("no such file: " + expected);
      return kExitUsage;
    }
  } else {
    for (const fs::path& p : {fs::path(dir) / ".." / "expected_failures.txt",
                              fs::path(dir) / "expected_failures.txt"}) {
      if (fs::is_regular_file(p, ec)) {
        expected = fs::weakly_canonical(p, ec).string();
        break;
      }
    }
  }
  const conformance::Report report = conformance::RunConformance(dir, expected);
  out << conformance::RenderSummary(report);
  bool wrote = true;
  if (auto j = a.Get("junit")) wrote &= WriteFile(*j, conformance::RenderJUnit(report), err);
  if (auto j = a.Get("json")) wrote &= WriteFile(*j, conformance::RenderJson(report), err);
  if (auto h = a.Get("html")) wrote &= WriteFile(*h, html::NativeReportPage(report), err);
  return report.ok() && wrote ? kExitOk : kExitFailure;
}

int Testee(const Args& a, std::istream& in, std::ostream& out, Usage& u) {
  if (!RequireNoPositional(a, 0, u)) return kExitUsage;
  uint32_t quirks = 0;
  if (auto q = a.Get("quirks"); q && !ResolveQuirks(*q, quirks, u)) return kExitUsage;
  RecordsMode records = RecordsMode::kValidate;
  if (!ResolveRecords(a, records, u)) return kExitUsage;
  return ServeTestee(in, out, quirks, records);
}

// The frame checks of `kwire proxy` and `kwire pcap` (tools/traffic): --quirks, --records,
// --max-frame-size.
bool ResolveCheckOptions(const Args& a, traffic::CheckOptions& check, Usage& u) {
  if (auto q = a.Get("quirks"); q && !ResolveQuirks(*q, check.quirks, u)) return false;
  if (!ResolveRecords(a, check.records, u)) return false;
  if (auto n = a.Get("max-frame-size")) {
    const std::optional<long> v = ParseNumber(*n);
    if (!v || *v < 12 || *v > INT32_MAX) {
      return u.Fail("--max-frame-size takes a number of bytes (12 to 2147483647), not '" + *n +
                    "'");
    }
    check.max_frame_size = static_cast<int32_t>(*v);
  }
  return true;
}

// --log FILE (or "-", the default: `out`): where one JSON line per frame goes. Null, with
// the reason on `err`, when FILE cannot be written.
std::ostream* OpenLog(const Args& a, const char* cmd, std::ostream& out, std::ostream& err,
                      std::ofstream& file) {
  const std::optional<std::string> path = a.Get("log");
  if (!path || *path == "-") return &out;
  file.open(*path);
  if (!file) {
    err << "kwire " << cmd << ": cannot write --log " << *path << ": " << std::strerror(errno)
        << "\n";
    return nullptr;
  }
  return &file;
}

int Proxy(const Args& a, std::ostream& out, std::ostream& err, Usage& u) {
  if (!RequireNoPositional(a, 0, u)) return kExitUsage;
  proxy::Options o;
  const std::optional<std::string> broker = a.Get("broker");
  if (!broker) {
    u.Fail("--broker HOST:PORT is required");
    return kExitUsage;
  }
  absl::StatusOr<proxy::Endpoint> b = proxy::ParseEndpoint(*broker);
  if (!b.ok()) {
    u.Fail("--broker: " + std::string(b.status().message()));
    return kExitUsage;
  }
  o.broker = *b;
  if (auto l = a.Get("listen")) {
    absl::StatusOr<proxy::Endpoint> e = proxy::ParseEndpoint(*l);
    if (!e.ok()) {
      u.Fail("--listen: " + std::string(e.status().message()));
      return kExitUsage;
    }
    o.listen = *e;
  }
  if (!ResolveCheckOptions(a, o.check, u)) return kExitUsage;
  if (auto n = a.Get("max-connections")) {
    const std::optional<long> v = ParseNumber(*n);
    if (!v || *v < 1 || *v > 1000000) {
      u.Fail("--max-connections takes a number (1 to 1000000), not '" + *n + "'");
      return kExitUsage;
    }
    o.max_connections = static_cast<size_t>(*v);
  }
  if (auto c = a.Get("check")) {
    if (*c != "on" && *c != "off") {
      u.Fail("--check takes on or off, not '" + *c + "'");
      return kExitUsage;
    }
    o.check_frames = *c == "on";
  }
  if (auto n = a.Get("check-threads")) {
    const std::optional<long> v = ParseNumber(*n);
    if (!v || *v < 1 || *v > 256) {
      u.Fail("--check-threads takes a number (1 to 256), not '" + *n + "'");
      return kExitUsage;
    }
    o.check_threads = static_cast<size_t>(*v);
  }
  o.fail_fast = a.flags.count("fail-fast") > 0;
  o.rewrite_addresses = a.flags.count("no-rewrite") == 0;
  o.include_frames = a.flags.count("frames") > 0;
  std::ofstream file;
  std::ostream* log = OpenLog(a, "proxy", out, err, file);
  if (log == nullptr) return kExitUsage;
  return proxy::RunUntilSignal(std::move(o), *log, err, a.Get("port-file").value_or(""),
                               a.Get("summary-json").value_or(""));
}

int Pcap(const Args& a, std::ostream& out, std::ostream& err, Usage& u) {
#if KWIRE_HAVE_PCAP
  if (a.positional.empty()) {
    u.Fail("a capture FILE is required");
    return kExitUsage;
  }
  if (!RequireNoPositional(a, 1, u)) return kExitUsage;
  pcap::Options o;
  if (auto ports = a.Get("port")) {
    const std::vector<std::string> list = absl::StrSplit(*ports, absl::ByAnyChar(",\n"));
    for (const std::string& p : list) {
      const std::optional<long> v = ParseNumber(p);
      if (!v || *v < 1 || *v > 65535) {
        u.Fail("--port takes a TCP port (1 to 65535), not '" + p + "'");
        return kExitUsage;
      }
      o.ports.push_back(static_cast<uint16_t>(*v));
    }
  }
  if (!ResolveCheckOptions(a, o.check, u)) return kExitUsage;
  o.fail_fast = a.flags.count("fail-fast") > 0;
  o.include_frames = a.flags.count("frames") > 0;
  std::ofstream file;
  std::ostream* log = OpenLog(a, "pcap", out, err, file);
  if (log == nullptr) return kExitUsage;
  return pcap::Run(a.positional[0], std::move(o), *log, err, a.Get("summary-json").value_or(""));
#else
  err << "kwire pcap: not in this build: it needs libpcap and libtins (Debian libpcap-dev and\n"
         "libtins-dev; tools/install-deps.sh installs them), then a new configure (KWIRE_PCAP\n"
         "is ON by default: cmake -S . -B BUILD -DKWIRE_PCAP=ON) and build\n";
  return kExitUsage;
#endif
}

constexpr const char* kDiffUsage =
    "usage: kwire diff --testee CMD --testee CMD [...] [--seeds FILE|DIR]... [--time SECONDS]\n"
    "                  [--count N] [--seed S] [--out DIR] [--op validate|decode|roundtrip]\n"
    "                  [--api LIST] [--direction request|response] [--timeout SECONDS]\n"
    "                  [--expected FILE] [--minimize N] [--max-rss MIB]\n"
    "\n"
    "A differential campaign: seed frames are mutated and every mutant is sent to every\n"
    "testee (a program that speaks the testee protocol, conformance/README.md \"Testing\n"
    "another implementation\": 'kwire testee', 'kwire testee --quirks java',\n"
    "conformance/testees/apache-kafka/run.sh, ...); their answers are compared. Mutations:\n"
    "kwire's structure-aware fuzz mutator (field values, arrays, strings, record batches,\n"
    "tagged fields, unknown tags, versions, other APIs; sizes and CRCs recomputed), lengths\n"
    "and counts set to boundary or non-canonical values, and byte-level changes (bits,\n"
    "bytes inserted, deleted, appended). Compared: the verdicts (ok, rejected, refused)\n"
    "and, where both read the frame, the decoded values (--op decode: the JSON mapping of\n"
    "conformance/FORMAT.md) or the re-encodings (--op roundtrip); a testee without the\n"
    "operation is asked validate.\n"
    "\n"
    "Each disagreement is classified (which testees, their verdicts, and kwire's own strict\n"
    "reading of the mutant: its error kind and field path), deduplicated by that signature,\n"
    "and its first mutant minimized (structure-aware, then by deleting bytes) while the\n"
    "signature holds. A testee that crashes, dies, hangs past --timeout or passes --max-rss\n"
    "is a finding of its own, and is restarted. Progress goes to stderr every 5 s; at the\n"
    "end a table: per pair of testees and class, the mutants, signatures and an example.\n"
    "Mutant i depends only on the seeds, --seed and i: the same options give the same\n"
    "campaign (up to --time). Ctrl-C ends it early, with the summary and files.\n"
    "\n"
    "options:\n"
    "  --testee CMD       a testee command, run with /bin/sh -c; repeat it, one per\n"
    "                     implementation\n"
    "  --seeds PATH       a *.jsonl vector file, a folder of them, or a fuzz corpus folder\n"
    "                     (corpus/request_frame_fuzzer, corpus/response_frame_fuzzer);\n"
    "                     repeatable; default: every vector of conformance/vectors\n"
    "  --time SECONDS     stop after this long (default 60; 0: no limit)\n"
    "  --count N          stop after N mutants (default: no limit)\n"
    "  --seed S           the campaign's seed (default 1)\n"
    "  --out DIR          write findings.jsonl (a vector record per finding, its frame\n"
    "                     minimized, with every testee's answer), signatures.txt, summary.txt\n"
    "  --op OP            validate (default), decode or roundtrip\n"
    "  --api LIST         seeds of these APIs only (names or keys, comma-separated)\n"
    "  --direction D      seeds of requests or of responses only\n"
    "  --timeout SECONDS  per answer (default 10)\n"
    "  --expected FILE    known signatures, one a line, exact or as fnmatch(3) patterns\n"
    "                     (' # ' starts a comment; signatures.txt is one): their findings\n"
    "                     do not fail the run\n"
    "  --minimize N       evaluations per finding's minimization (default 200; 0: none)\n"
    "  --max-rss MIB      a testee whose process group's resident memory passes this is\n"
    "                     killed (default 4096; 0: no limit)\n"
    "\n"
    "Exit status: 0 no finding outside --expected, 1 findings (or a testee that does not\n"
    "start), 2 usage error. Example:\n"
    "  kwire diff --testee 'kwire testee --quirks java' \\\n"
    "      --testee conformance/testees/apache-kafka/run.sh \\\n"
    "      --seeds conformance/vectors/rich.jsonl --time 300 --op decode --out diff-out\n";

// `kwire diff` (tools/diff): its options, then diff::DiffMain.
int Diff(const Args& a, std::ostream& out, std::ostream& err, Usage& u) {
#if KWIRE_HAVE_DIFF
  if (!RequireNoPositional(a, 0, u)) return kExitUsage;
  diff::DiffOptions o;
  auto list = [&](const char* name) {  // repeated options are joined by '\n'
    std::vector<std::string> v;
    if (auto s = a.Get(name)) v = absl::StrSplit(*s, '\n', absl::SkipEmpty());
    return v;
  };
  o.testees = list("testee");
  if (o.testees.empty()) {
    u.Fail("--testee CMD is required (once per implementation)");
    return kExitUsage;
  }
  o.seeds = list("seeds");
  if (o.seeds.empty()) o.seeds = {DefaultVectorsDir()};
  auto seconds = [&](const char* name, double& v) {
    auto s = a.Get(name);
    return !s || (absl::SimpleAtod(*s, &v) && v >= 0 && v < 1e9) ||
           u.Fail(absl::StrCat("--", name, " takes seconds (a number >= 0), not '", *s, "'"));
  };
  auto number = [&](const char* name, auto& v) {
    auto s = a.Get(name);
    return !s || absl::SimpleAtoi(*s, &v) || u.Fail(absl::StrCat("--", name, " takes a number, not '", *s, "'"));
  };
  if (!seconds("time", o.time_seconds) || !seconds("timeout", o.timeout_seconds) || !number("count", o.count) ||
      !number("seed", o.seed) || !number("minimize", o.minimize_budget) || !number("max-rss", o.max_rss_mib)) {
    return kExitUsage;
  }
  if (o.timeout_seconds <= 0) {
    u.Fail("--timeout must be above 0");
    return kExitUsage;
  }
  o.op = a.Get("op").value_or("validate");
  if (o.op != "validate" && o.op != "decode" && o.op != "roundtrip") {
    u.Fail("--op takes validate, decode or roundtrip, not '" + o.op + "'");
    return kExitUsage;
  }
  if (auto d = a.Get("direction")) {
    Direction dir;
    if (!ResolveDirection(*d, dir, u)) return kExitUsage;
    o.request = dir == Direction::kRequest;
  }
  if (auto apis = a.Get("api")) {
    for (absl::string_view name : absl::StrSplit(*apis, ',', absl::SkipEmpty())) {
      const ApiInfo* api = nullptr;
      if (!ResolveApi(std::string(name), api, u)) return kExitUsage;
      o.api_keys.insert(api->api_key);
    }
  }
  o.out_dir = a.Get("out").value_or("");
  o.expected_file = a.Get("expected").value_or("");
  return diff::DiffMain(o, out, err);
#else
  err << "kwire diff: not in this build: it needs the fuzz mutator (configure with\n"
         "KWIRE_FUZZERS=ON, the default of a top-level build)\n";
  return kExitUsage;
#endif
}

#if !KWIRE_HAVE_BROKERFUZZ
constexpr const char* kBrokerFuzzUnavailable =
    "kwire broker-fuzz: not in this build: it needs the fuzz mutator (configure with\n"
    "KWIRE_FUZZERS=ON, the default of a top-level build)\n";
#endif

// `kwire broker-fuzz` (tools/brokerfuzz): its options parsed there, then BrokerFuzzMain.
int BrokerFuzz(const Args& a, std::ostream& out, std::ostream& err, Usage& u) {
#if KWIRE_HAVE_BROKERFUZZ
  if (!RequireNoPositional(a, 0, u)) return kExitUsage;
  brokerfuzz::Options o;
  std::string error;
  if (!brokerfuzz::ParseOptions(a.values, a.flags, {DefaultVectorsDir()}, o, error)) {
    u.Fail(error);
    return kExitUsage;
  }
  return brokerfuzz::BrokerFuzzMain(o, out, err);
#else
  (void)a, (void)out, (void)u;
  err << kBrokerFuzzUnavailable;
  return kExitUsage;
#endif
}

struct Command {
  const char* name;
  const char* usage;
  std::set<std::string> valued;
  std::set<std::string> flags;
  std::set<std::string> repeatable = {};  ///< Valued options given more than once.
};

const std::vector<Command>& Commands() {
  static const std::vector<Command> commands = {
      {"apis", kApisUsage, {}, {}},
      {"minimal", kMinimalUsage, {}, {}},
      {"decode", kDecodeUsage, {"api", "version", "quirks", "records", "requests", "vector"},
       {"binary", "quiet", "json"}},
      {"encode", kEncodeUsage, {}, {"binary"}},
      {"explain", kExplainUsage,
       {"api", "version", "quirks", "records", "requests", "width", "vector", "html", "depth",
        "path"},
       {"binary", "show-secrets", "no-bytes", "lengths"}},
      {"conformance", kConformanceUsage,
       {"expected-failures", "junit", "json", "html", "testee", "category", "api", "version",
        "direction", "id", "timeout", "testee-log"},
       {"lenient", "list", "strict-errors"}},
      {"testee", kTesteeUsage, {"quirks", "records"}, {}},
      {"proxy", kProxyUsage,
       {"broker", "listen", "quirks", "records", "log", "port-file", "summary-json",
        "max-frame-size", "max-connections", "check", "check-threads"},
       {"fail-fast", "no-rewrite", "frames"}},
      {"pcap", kPcapUsage,
       {"port", "quirks", "records", "log", "summary-json", "max-frame-size"},
       {"fail-fast", "frames"},
       {"port"}},
      {"diff", kDiffUsage,
       {"testee", "seeds", "time", "count", "seed", "out", "op", "api", "direction", "timeout",
        "expected", "minimize", "max-rss"},
       {},
       {"testee", "seeds"}},
      {"site", kSiteUsage, {}, {"all-versions"}},
#if KWIRE_HAVE_BROKERFUZZ
      {"broker-fuzz", brokerfuzz::kUsage, brokerfuzz::ValuedOptions(), brokerfuzz::FlagOptions(),
       brokerfuzz::RepeatableOptions()},
#else
      {"broker-fuzz", kBrokerFuzzUnavailable, {}, {}},
#endif
  };
  return commands;
}

// After a usage error: the command's synopsis (its usage text's first lines, up to the
// first blank line) and where the rest is, not the whole help again.
std::string UsageHint(const Command& cmd) {
  const std::string usage = cmd.usage;
  const size_t blank = usage.find("\n\n");
  return usage.substr(0, blank == std::string::npos ? usage.size() : blank + 1) + "Run 'kwire " +
         cmd.name + " --help' for the options.\n";
}

const Command* FindCommand(const std::string& name) {
  for (const Command& c : Commands()) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

}  // namespace

int Run(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
        std::ostream& err) {
  if (args.empty()) {
    err << kMainUsage;
    return kExitUsage;
  }
  const std::string& name = args[0];
  if (name == "-h" || name == "--help") {
    if (args.size() > 1) {  // `kwire --help --bogus`: a usage error, like every command's
      err << "kwire: unexpected argument '" << args[1] << "' after " << name << "\n\n"
          << kMainUsage;
      return kExitUsage;
    }
    out << kMainUsage;
    return kExitOk;
  }
  if (name == "help") {
    if (args.size() == 1) {
      out << kMainUsage;
      return kExitOk;
    }
    const Command* c = FindCommand(args[1]);
    if (c == nullptr || args.size() > 2) {
      err << "kwire help: unknown command '" << args[1] << "'\n\n" << kMainUsage;
      return kExitUsage;
    }
    out << c->usage;
    return kExitOk;
  }
  const Command* cmd = FindCommand(name);
  if (cmd == nullptr) {
    err << "kwire: unknown command '" << name << "'\n\n" << kMainUsage;
    return kExitUsage;
  }
  Args a;
  std::string error;
  if (!Parse(args, 1, cmd->valued, cmd->flags, a, error, cmd->repeatable)) {
    err << "kwire " << cmd->name << ": " << error << "\n" << UsageHint(*cmd);
    return kExitUsage;
  }
  if (a.help) {
    out << cmd->usage;
    return kExitOk;
  }
  Usage u;
  int rc = kExitUsage;
  if (name == "apis")
    rc = Apis(a, out, u);
  else if (name == "minimal")
    rc = Minimal(a, out, err, u);
  else if (name == "decode")
    rc = Decode(a, in, out, err, u);
  else if (name == "encode")
    rc = Encode(a, in, out, err, u);
  else if (name == "explain")
    rc = Explain(a, in, out, err, u);
  else if (name == "testee")
    rc = Testee(a, in, out, u);
  else if (name == "proxy")
    rc = Proxy(a, out, err, u);
  else if (name == "pcap")
    rc = Pcap(a, out, err, u);
  else if (name == "diff")
    rc = Diff(a, out, err, u);
  else if (name == "broker-fuzz")
    rc = BrokerFuzz(a, out, err, u);
  else if (name == "site")
    rc = Site(a, out, err, u);
  else
    rc = Conformance(a, out, err, u);
  if (!u.ok()) {
    err << "kwire " << cmd->name << ": " << u.error << "\n" << UsageHint(*cmd);
    return kExitUsage;
  }
  return rc;
}

}  // namespace kwire::cli
