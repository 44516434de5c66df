package kwire.peer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import kwire.kafka.KafkaFrames;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;

/**
 * Frames (int32 size, header, body) through Kafka's generated message classes, as the
 * conformance testee reads and writes them (conformance/testees/apache-kafka, Frames.java)
 * and as Kafka does: a request's header as {@code RequestHeader.parse} reads it (API key and
 * version first, then {@link RequestHeaderData} at the header version they imply), a
 * response's as {@code ResponseHeader.parse}; the body by {@code newRequest()/newResponse()}
 * and {@code read(Readable, version)}, what {@code AbstractRequest.parseRequest} and
 * {@code AbstractResponse.parseResponse} call underneath their wrappers. Records fields are
 * {@code MemoryRecords} over a slice of the frame (no copy, no check). The header version,
 * the body class and the two-pass write come from the testee's adapter
 * ({@code kwire.kafka.KafkaFrames}, conformance/testees/apache-kafka/src/adapter/java), their
 * one home.
 */
final class Codec {
  private Codec() {}

  /** One frame of frames.tsv. */
  static final class Frame {
    final String name;
    final short apiKey;
    final short version;
    final boolean request;
    final byte[] bytes;

    Frame(String name, short apiKey, short version, boolean request, byte[] bytes) {
      this.name = name;
      this.apiKey = apiKey;
      this.version = version;
      this.request = request;
      this.bytes = bytes;
    }
  }

  static List<Frame> load(String dir) throws IOException {
    List<Frame> out = new ArrayList<>();
    for (String line : Files.readAllLines(Path.of(dir, "frames.tsv"))) {
      String[] c = line.split("\t");
      if (c.length != 6) {
        throw new IOException("frames.tsv: bad line " + line);
      }
      byte[] b = Files.readAllBytes(Path.of(dir, c[5]));
      if (b.length != Integer.parseInt(c[4])) {
        throw new IOException(c[5] + ": " + b.length + " bytes, frames.tsv says " + c[4]);
      }
      out.add(new Frame(c[0], Short.parseShort(c[1]), Short.parseShort(c[2]),
          c[3].equals("request"), b));
    }
    return out;
  }

  static Frame load(String dir, String name) throws IOException {
    for (Frame f : load(dir)) {
      if (f.name.equals(name)) {
        return f;
      }
    }
    throw new IOException("no frame " + name + " in " + dir);
  }

  /** A decoded frame. */
  static final class Decoded {
    Message header;
    short headerVersion;
    ApiMessage body;
    short version;
    int remaining;  // bytes the readers left after the body
  }

  /** Why Kafka does not have (key, version), or null when it does. */
  static String unsupported(Frame f) {
    ApiMessageType t;
    try {
      t = ApiMessageType.fromApiKey(f.apiKey);
    } catch (RuntimeException e) {
      return "kafka-clients has no API key " + f.apiKey;
    }
    short lo = t.lowestSupportedVersion();
    short hi = t.highestSupportedVersion(true);
    if (f.version < lo || f.version > hi) {
      return "kafka-clients has " + t.name + " v" + lo + "-v" + hi;
    }
    return null;
  }

  static Decoded decode(Frame f) {
    ByteBuffer buf = ByteBuffer.wrap(f.bytes);
    int size = buf.getInt();
    if (size != f.bytes.length - 4) {
      throw new IllegalArgumentException("size prefix " + size + ", frame of " + f.bytes.length);
    }
    ByteBufferAccessor in = new ByteBufferAccessor(buf);
    Decoded d = new Decoded();
    if (f.request) {
      short key = buf.getShort(4);
      short ver = buf.getShort(6);
      ApiMessageType t = ApiMessageType.fromApiKey(key);
      d.headerVersion = KafkaFrames.headerVersion(t, true, ver);
      d.header = new RequestHeaderData(in, d.headerVersion);
      d.body = KafkaFrames.newBody(t, true);
      d.version = ver;
    } else {
      ApiMessageType t = ApiMessageType.fromApiKey(f.apiKey);
      d.headerVersion = KafkaFrames.headerVersion(t, false, f.version);
      d.header = new ResponseHeaderData(in, d.headerVersion);
      d.body = KafkaFrames.newBody(t, false);
      d.version = f.version;
    }
    d.body.read(in, d.version);
    d.remaining = in.remaining();
    return d;
  }

  /**
   * Writes d as a whole frame into {@code into} (cleared by the caller; capacity enough), or
   * into a new buffer of the exact size when {@code into} is null (KafkaFrames.write, the
   * testee's writer). Returns the buffer.
   */
  static ByteBuffer encode(Decoded d, ByteBuffer into) {
    return KafkaFrames.write(d.header, d.headerVersion, d.body, d.version, into);
  }
}
