package kwire.testee;

import com.fasterxml.jackson.databind.JsonNode;
import kwire.kafka.KafkaFrames;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.Readable;

/**
 * Frames (int32 size, header, body) through Kafka's generated classes: the request header as
 * {@code RequestHeader.parse} reads it (API key and version first, then {@link RequestHeaderData}
 * at {@code requestHeaderVersion}), the response header as {@link ResponseHeaderData} at
 * {@code responseHeaderVersion}, the body by {@code newRequest()/newResponse()} and
 * {@code read(Readable, version)}, an ApiVersions response with
 * {@code ApiVersionsResponse.parse}'s fallback to v0. What Java's readers leave to their callers
 * is checked here and said so: the size prefix against the frame, versions the release does not
 * have, and bytes left after the body.
 */
final class Frames {
  private Frames() {}

  /** The operation's vector: what the runner says about the frame. */
  static final class Request {
    final short apiKey;
    final short version;
    final boolean request;
    final String frameHex;

    Request(JsonNode q) {
      this.apiKey = (short) q.path("api_key").intValue();
      this.version = (short) q.path("version").intValue();
      this.request = "request".equals(q.path("direction").asText());
      this.frameHex = q.path("frame").asText("");
    }
  }

  /** The release does not have this API or version: answered "unsupported". */
  static final class Unsupported extends Exception {
    private static final long serialVersionUID = 1L;

    Unsupported(String m) {
      super(m);
    }
  }

  /** Kafka (or the testee's own check, which then says so) refuses the frame. */
  static final class Rejected extends Exception {
    private static final long serialVersionUID = 1L;
    final String kind;
    final int offset;

    Rejected(String m, String kind, int offset) {
      super(m);
      this.kind = kind;
      this.offset = offset;
    }

    Rejected(String m) {
      this(m, null, -1);
    }
  }

  static final class Decoded {
    Message header;
    short headerVersion;
    ApiMessage body;
    short bodyVersion;
  }

  static String release() {
    return "Apache Kafka " + Compat.kafkaVersion();
  }

  static short lowest(ApiMessageType t) {
    return t.lowestSupportedVersion();
  }

  static short highest(ApiMessageType t) {
    return t.highestSupportedVersion(true);  // the unstable latest version included
  }

  /** The API of the vector, if the release has it at the vector's version. */
  static ApiMessageType supported(short apiKey, short version) throws Unsupported {
    ApiMessageType t;
    try {
      t = ApiMessageType.fromApiKey(apiKey);
    } catch (RuntimeException e) {
      throw new Unsupported(release() + " has no API key " + apiKey + " (" + e + ")");
    }
    short lo = lowest(t);
    short hi = highest(t);
    if (hi < lo) {
      throw new Unsupported(release() + " has no version of " + t.name + " (key " + apiKey
          + "): its definition's validVersions is \"none\" (the API was removed)");
    }
    if (version < lo) {
      throw new Unsupported(t.name + " v" + version + " was removed before " + release()
          + ", which has v" + lo + "-" + hi);
    }
    if (version > hi) {
      throw new Unsupported(t.name + " v" + version + " is newer than " + release()
          + ", which has v" + lo + "-" + hi);
    }
    return t;
  }

  static byte[] frameBytes(Request r) throws Rejected {
    byte[] b;
    try {
      b = Mapping.HEX.parseHex(r.frameHex);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException("testee: the vector's frame is not hex: " + e.getMessage());
    }
    if (b.length < 4) {
      throw new Rejected("a frame of " + b.length + " bytes has no int32 size prefix (checked by the testee)",
          "invalid_frame_size", 0);
    }
    int size = ByteBuffer.wrap(b).getInt();
    if (size != b.length - 4) {
      throw new Rejected("the size prefix says " + size + " bytes, " + (b.length - 4)
          + " follow it (checked by the testee)", "invalid_frame_size", 0);
    }
    return b;
  }

  /** Decodes the vector's frame with Kafka's classes. */
  static Decoded decode(Request r) throws Rejected, Unsupported {
    ApiMessageType vectorType = supported(r.apiKey, r.version);
    byte[] b = frameBytes(r);
    ByteBuffer buf = ByteBuffer.wrap(b, 4, b.length - 4).slice();
    ByteBufferAccessor acc = new ByteBufferAccessor(buf);
    Readable in = acc;
    Decoded d = new Decoded();
    if (r.request) {
      // RequestHeader.parse: the key and version, the header version they imply, the header.
      if (buf.remaining() < 4) {
        throw new Rejected("java.nio.BufferUnderflowException (reading the request header's "
            + "API key and version, " + buf.remaining() + " bytes)", "truncated", 4 + buf.remaining());
      }
      short key = buf.getShort(0);
      short ver = buf.getShort(2);
      ApiMessageType t;
      try {
        t = ApiMessageType.fromApiKey(key);
      } catch (RuntimeException e) {
        throw new Rejected(e.toString(), "unknown_api_key", 4);
      }
      d.headerVersion = KafkaFrames.headerVersion(t, true, ver);
      RequestHeaderData h = new RequestHeaderData();
      read(h, acc, d.headerVersion, "RequestHeaderData");
      d.header = h;
      if (ver < lowest(t) || ver > highest(t)) {
        throw new Rejected(t.name + " v" + ver + " is not in " + release() + " (v" + lowest(t) + "-"
            + highest(t) + "; checked by the testee as a broker does, Java's readers do not)",
            "unsupported_version", 6);
      }
      d.body = KafkaFrames.newBody(t, true);
      d.bodyVersion = ver;
      read(d.body, acc, ver, d.body.getClass().getSimpleName());
    } else {
      ApiMessageType t = vectorType;
      d.headerVersion = KafkaFrames.headerVersion(t, false, r.version);
      ResponseHeaderData h = new ResponseHeaderData();
      read(h, acc, d.headerVersion, "ResponseHeaderData");
      d.header = h;
      d.body = KafkaFrames.newBody(t, false);
      d.bodyVersion = r.version;
      if (t == ApiMessageType.API_VERSIONS && r.version != 0) {
        // ApiVersionsResponse.parse: on any failure read the body again at v0 (KIP-511).
        Readable saved = new ByteBufferAccessor(buf.duplicate());  // from the body's first byte
        try {
          d.body.read(acc, r.version);
        } catch (RuntimeException e) {
          d.body = t.newResponse();
          d.bodyVersion = 0;
          in = saved;
          read(d.body, saved, (short) 0, "ApiVersionsResponseData (v0 fallback after: " + e + ")");
        }
      } else {
        read(d.body, acc, r.version, d.body.getClass().getSimpleName());
      }
    }
    if (in.remaining() > 0) {
      int at = b.length - in.remaining();
      throw new Rejected(in.remaining() + " trailing bytes at offset " + at
          + " (checked by the testee; Java's readers do not)", "trailing_bytes", at);
    }
    return d;
  }

  private static void read(Message m, Readable in, short version, String what) throws Rejected {
    try {
      m.read(in, version);
    } catch (RuntimeException e) {
      throw new Rejected(e + " (" + what + ".read, v" + version + ")");
    }
  }

  /** size prefix + header + body, written by Kafka's writers after size() (KafkaFrames.write). */
  static byte[] encode(Message header, short hv, Message body, short bv, String what) throws Rejected {
    try {
      return KafkaFrames.write(header, hv, body, bv, null).array();
    } catch (RuntimeException e) {
      throw new Rejected(what + " failed: " + e);
    }
  }

  /** The encode operation: the vector's header and body through Kafka's converters and writers. */
  static byte[] encodeJson(Request r, JsonNode q) throws Throwable {
    ApiMessageType t = supported(r.apiKey, r.version);
    short bv = q.has("body_version") ? (short) q.get("body_version").intValue() : r.version;
    short hv = KafkaFrames.headerVersion(t, r.request, r.version);
    Class<?> headerClass = r.request ? RequestHeaderData.class : ResponseHeaderData.class;
    Class<?> bodyClass = KafkaFrames.newBody(t, r.request).getClass();
    Message header;
    Message body;
    try {
      header = Mapping.fromKwire(headerClass, q.path("header"), hv);
      body = Mapping.fromKwire(bodyClass, q.path("body"), bv);
    } catch (Mapping.BadJson e) {
      throw new Rejected("the JSON is not a message of the definition: " + e.getMessage());
    } catch (RuntimeException e) {
      throw new Rejected("Kafka's JsonConverter refused the JSON: " + e);
    }
    return encode(header, hv, body, bv, "writing the message");
  }

  /** --versions: the release's API keys and versions, for README.md. */
  static void printVersions(PrintStream out) {
    out.println("# " + release() + " (commit " + Compat.commitId() + ")");
    out.println("# key name lowest highest(unstable included) highest(stable) deprecated unstable");
    for (ApiMessageType t : ApiMessageType.values()) {
      String dep = t.lowestDeprecatedVersion() <= t.highestDeprecatedVersion()
          ? t.lowestDeprecatedVersion() + "-" + t.highestDeprecatedVersion() : "-";
      out.println(t.apiKey() + " " + t.name + " " + t.lowestSupportedVersion() + " "
          + t.highestSupportedVersion(true) + " " + t.highestSupportedVersion(false) + " " + dep
          + (t.latestVersionUnstable() ? " unstable" : ""));
    }
  }
}
