package kwire.testee;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintStream;
import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.Message;

/**
 * The {@code java} vector set (conformance/FORMAT.md; issue 30 item 5): frames that no kwire
 * code wrote. For every API key, every version of this release (the unstable latest
 * included) and both directions, two seeded random messages are built from the release's own
 * definitions ({@link Specs}): {@code full} (every tagged field set, no nulls, arrays of 1-3
 * elements, record batches, unknown tagged fields in flexible versions) and {@code sparse}
 * (nulls where the version allows, empty or one-element arrays, tagged fields left at their
 * defaults at random). Each goes through Kafka's JsonConverter into Kafka's message classes and
 * is written by Kafka's writers; record batches are Kafka's own ({@code
 * MemoryRecords.withRecords}, uncompressed or gzip). The frame is then read back by Kafka, and
 * the vector's header and body are what Kafka read ({@link Mapping#toKwire}), so a kwire that
 * decodes the frame must produce them and re-encode the same bytes.
 *
 * <p>Deterministic: the random stream of each vector is seeded from its id, so the same
 * kafka-clients release gives the same file.
 */
final class Generate {
  private Generate() {}

  private static final String[] WORDS = {
    "topic", "a", "__consumer_offsets", "grp-1", "é", "日本語", "😀", "x.y_z", "", "client"
  };

  static int run(PrintStream out, PrintStream log) throws Throwable {
    List<ApiMessageType> types = new ArrayList<>(List.of(ApiMessageType.values()));
    types.sort(Comparator.comparingInt(ApiMessageType::apiKey));
    int written = 0;
    int skipped = 0;
    for (ApiMessageType t : types) {
      for (short v = t.lowestSupportedVersion(); v <= t.highestSupportedVersion(true); v++) {
        for (boolean request : new boolean[] {true, false}) {
          for (String variant : new String[] {"full", "sparse"}) {
            String id = "java/" + apiName(t) + "/v" + v + "/" + (request ? "request" : "response")
                + "/" + variant;
            try {
              out.println(Testee.JSON.writeValueAsString(vector(t, v, request, variant, id)));
              written++;
            } catch (Frames.Rejected | RuntimeException e) {
              log.println("generate: " + id + ": skipped: " + e);
              skipped++;
            }
          }
        }
      }
    }
    log.println("generate: " + written + " vectors, " + skipped + " skipped (" + Frames.release() + ")");
    return skipped == 0 ? 0 : 1;
  }

  /** "Produce" from PRODUCE's request class ProduceRequestData. */
  static String apiName(ApiMessageType t) {
    String n = t.newRequest().getClass().getSimpleName();
    return n.substring(0, n.length() - "RequestData".length());
  }

  static ObjectNode vector(ApiMessageType t, short v, boolean request, String variant, String id)
      throws Throwable {
    Random rnd = new Random(id.hashCode() * 0x9E3779B97F4A7C15L);
    boolean full = variant.equals("full");
    short hv = request ? t.requestHeaderVersion(v) : t.responseHeaderVersion(v);
    Message bodyObj = request ? t.newRequest() : t.newResponse();
    Specs.Message spec = Mapping.specOf(bodyObj.getClass());
    ObjectNode body = struct(spec, spec.top, v, rnd, full, 0);
    Specs.Message hspec = Specs.get(request ? "RequestHeader" : "ResponseHeader");
    ObjectNode header = struct(hspec, hspec.top, hv, rnd, full, 0);
    if (request) {
      header.put("RequestApiKey", t.apiKey());
      header.put("RequestApiVersion", v);
    }
    Class<?> hclass = request ? RequestHeaderData.class : ResponseHeaderData.class;
    Message h = Mapping.fromKwire(hclass, header, hv);
    Message b = Mapping.fromKwire(bodyObj.getClass(), body, v);
    byte[] frame = Frames.encode(h, hv, b, v, "writing " + id);

    // Read back by Kafka: the vector holds what Kafka reads, and Kafka's writers must give the
    // same bytes again.
    ObjectNode q = Testee.JSON.createObjectNode();
    q.put("api_key", t.apiKey());
    q.put("version", v);
    q.put("direction", request ? "request" : "response");
    q.put("frame", Mapping.HEX.formatHex(frame));
    Frames.Decoded d = Frames.decode(new Frames.Request(q));
    byte[] again = Frames.encode(d.header, d.headerVersion, d.body, d.bodyVersion, "re-writing " + id);
    if (!java.util.Arrays.equals(frame, again)) {
      throw new IllegalStateException("Kafka re-wrote " + id + " differently");
    }
    ObjectNode vec = Testee.JSON.createObjectNode();
    vec.put("format", 1);
    vec.put("id", id);
    vec.put("set", "java");
    vec.put("api_key", t.apiKey());
    vec.put("api_name", apiName(t));
    vec.put("version", v);
    vec.put("direction", request ? "request" : "response");
    vec.put("header_version", hv);
    vec.put("frame", Mapping.HEX.formatHex(frame));
    vec.put("expect", "accept");
    vec.set("header", Mapping.toKwire(d.header, d.headerVersion));
    vec.set("body", Mapping.toKwire(d.body, d.bodyVersion));
    vec.put("source", "org.apache.kafka:kafka-clients " + Compat.kafkaVersion()
        + " (random " + variant + " instance written by Kafka; testee --generate)");
    return vec;
  }

  private static ObjectNode struct(Specs.Message spec, Specs.Struct st, int v, Random rnd,
      boolean full, int depth) throws Throwable {
    ObjectNode o = Mapping.F.objectNode();
    for (Specs.Field f : st.fields) {
      if (!f.versions.contains(v)) {
        continue;
      }
      if (f.tagged.contains(v) && !full && rnd.nextBoolean()) {
        continue;  // a tagged field left out: its default, not written
      }
      if (f.nullable.contains(v) && !full && rnd.nextInt(3) == 0) {
        o.putNull(f.name);
        continue;
      }
      if (f.array) {
        ArrayNode a = o.putArray(f.name);
        int n = full ? 1 + rnd.nextInt(depth >= 2 ? 1 : 3) : rnd.nextInt(2);
        for (int i = 0; i < n; i++) {
          a.add(f.isStruct() ? struct(spec, f.struct(), v, rnd, full, depth + 1) : scalar(f.type, rnd, full));
        }
      } else if (f.isStruct()) {
        o.set(f.name, struct(spec, f.struct(), v, rnd, full, depth + 1));
      } else {
        o.set(f.name, scalar(f.type, rnd, full));
      }
    }
    if (full && spec.flexible.contains(v) && rnd.nextInt(3) == 0) {
      ArrayNode u = o.putArray(Mapping.UNKNOWN_TAGS);
      int tag = 100 + rnd.nextInt(100);
      for (int i = 0; i < 1 + rnd.nextInt(2); i++) {
        ObjectNode e = u.addObject();
        e.put("tag", tag);
        byte[] data = new byte[rnd.nextInt(4)];
        rnd.nextBytes(data);
        e.put("data", Mapping.HEX.formatHex(data));
        tag += 1 + rnd.nextInt(1000);
      }
    }
    return o;
  }

  private static JsonNode scalar(String type, Random rnd, boolean full) throws Throwable {
    switch (type) {
      case "bool":
        return Mapping.F.booleanNode(rnd.nextBoolean());
      case "int8":
        return Mapping.F.numberNode(rnd.nextInt(256) - 128);
      case "int16":
        return Mapping.F.numberNode(pick(rnd, (short) rnd.nextInt(), (short) -1, (short) 0, Short.MAX_VALUE));
      case "uint16":
        return Mapping.F.numberNode(rnd.nextInt(65536));
      case "int32":
        return Mapping.F.numberNode(pick(rnd, rnd.nextInt(), -1, 0, Integer.MAX_VALUE, Integer.MIN_VALUE));
      case "uint32":
        return Mapping.F.numberNode(rnd.nextLong() & 0xffffffffL);
      case "int64":
        return Mapping.F.textNode(Long.toString(pick(rnd, rnd.nextLong(), -1L, 0L, Long.MAX_VALUE)));
      case "float64":
        return Mapping.F.numberNode(rnd.nextInt(4) == 0 ? 0.0 : rnd.nextDouble() * 1000);
      case "string": {
        StringBuilder sb = new StringBuilder();
        for (int i = rnd.nextInt(full ? 4 : 2); i > 0; i--) {
          sb.append(WORDS[rnd.nextInt(WORDS.length)]);
        }
        return Mapping.F.textNode(sb.toString());
      }
      case "bytes": {
        byte[] b = new byte[rnd.nextInt(full ? 9 : 3)];
        rnd.nextBytes(b);
        return Mapping.F.textNode(Mapping.HEX.formatHex(b));
      }
      case "uuid": {
        byte[] b = new byte[16];
        rnd.nextBytes(b);
        return Mapping.F.textNode(Mapping.HEX.formatHex(b));
      }
      case "records":
        return Mapping.F.textNode(Mapping.HEX.formatHex(records(rnd, full)));
      default:
        throw new IllegalStateException("unknown type " + type);
    }
  }

  @SafeVarargs
  private static <T> T pick(Random rnd, T... choices) {
    return choices[rnd.nextInt(choices.length)];
  }

  /** One record batch (magic 2) written by Kafka: MemoryRecords.withRecords(compression, records). */
  private static byte[] records(Random rnd, boolean full) throws Throwable {
    Class<?> simple = Class.forName("org.apache.kafka.common.record.internal.SimpleRecord");
    Class<?> compression = Class.forName("org.apache.kafka.common.compress.Compression");
    Class<?> memory = Class.forName("org.apache.kafka.common.record.internal.MemoryRecords");
    Object codec;
    Object none = compression.getField("NONE").get(null);
    if (full && rnd.nextBoolean()) {
      Object builder = compression.getMethod("gzip").invoke(null);
      codec = builder.getClass().getMethod("build").invoke(builder);
    } else {
      codec = none;
    }
    int n = 1 + rnd.nextInt(full ? 3 : 1);
    Object recs = Array.newInstance(simple, n);
    for (int i = 0; i < n; i++) {
      byte[] key = rnd.nextBoolean() ? null : ("k" + rnd.nextInt(100)).getBytes(StandardCharsets.UTF_8);
      byte[] value = new byte[rnd.nextInt(12)];
      rnd.nextBytes(value);
      Array.set(recs, i, simple.getConstructor(long.class, byte[].class, byte[].class)
          .newInstance(1_700_000_000_000L + rnd.nextInt(1_000_000), key, value));
    }
    Method with = memory.getMethod("withRecords", compression, recs.getClass());
    Object mr = with.invoke(null, codec, recs);
    ByteBuffer b = Compat.memoryRecordsBuffer(mr);
    byte[] bytes = new byte[b.remaining()];
    b.get(bytes);
    return bytes;
  }
}
