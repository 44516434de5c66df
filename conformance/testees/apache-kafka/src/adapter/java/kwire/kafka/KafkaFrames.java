package kwire.kafka;

import java.nio.ByteBuffer;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/**
 * kwire's adapter to Apache Kafka's generated message classes, in its one home: the
 * conformance testee (conformance/testees/apache-kafka, Frames.java) and the Java peer
 * benchmark (bench/peers/java, Codec.java) both frame messages with it. A frame is an int32
 * size, a header and a body; the header version is the one Kafka derives from the API key
 * and version ({@code ApiMessageType.requestHeaderVersion} / {@code responseHeaderVersion}),
 * the body class the one {@code newRequest()} / {@code newResponse()} gives, and writing is
 * Kafka's two-pass write ({@code RequestUtils.serialize}): {@code size()} with one
 * {@link ObjectSerializationCache} (which keeps each string's UTF-8 bytes for the write),
 * then {@code write()}.
 */
public final class KafkaFrames {
  private KafkaFrames() {}

  /** The header version of a request or response of {@code t} at {@code version}. */
  public static short headerVersion(ApiMessageType t, boolean request, short version) {
    return request ? t.requestHeaderVersion(version) : t.responseHeaderVersion(version);
  }

  /** An empty request or response body of {@code t}, to {@code read(Readable, version)} into. */
  public static ApiMessage newBody(ApiMessageType t, boolean request) {
    return request ? t.newRequest() : t.newResponse();
  }

  /**
   * Writes the frame (size prefix, {@code header} at {@code hv}, {@code body} at {@code bv})
   * into {@code into} from its position, or into a new buffer of the exact size when
   * {@code into} is null, and returns the buffer written to.
   *
   * @throws IllegalStateException when {@code into} has too little room, or when
   *     {@code write()} wrote other than {@code size()} said
   * @throws RuntimeException what Kafka's {@code size()} and {@code write()} throw (a field
   *     that the version cannot hold, a null where none may be)
   */
  public static ByteBuffer write(Message header, short hv, Message body, short bv, ByteBuffer into) {
    ObjectSerializationCache cache = new ObjectSerializationCache();
    int hs = header.size(cache, hv);
    int bs = body.size(cache, bv);
    ByteBuffer buf = into != null ? into : ByteBuffer.allocate(4 + hs + bs);
    if (buf.remaining() < 4 + hs + bs) {
      throw new IllegalStateException("a frame of " + (4 + hs + bs) + " bytes, room for "
          + buf.remaining());
    }
    int start = buf.position();
    buf.putInt(hs + bs);
    ByteBufferAccessor out = new ByteBufferAccessor(buf);
    header.write(out, cache, hv);
    body.write(out, cache, bv);
    if (buf.position() - start != 4 + hs + bs) {
      throw new IllegalStateException("size() said " + (hs + bs) + " bytes, write() wrote "
          + (buf.position() - start - 4));
    }
    return buf;
  }
}
