package kwire.testee;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BinaryNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.types.RawTaggedField;

/**
 * Between Kafka's own JSON form of a message (the generated {@code <Message>JsonConverter}
 * classes of kafka-clients) and kwire's JSON mapping (conformance/FORMAT.md, "The JSON mapping
 * of a message").
 *
 * <p>The converters write member names with a lower-case first letter ({@code topicId}), int64
 * as JSON numbers, uuids as Kafka's base64 form, bytes as base64 (a Jackson BinaryNode), and
 * they drop two things: records fields (written as an empty BinaryNode) and unknown tagged
 * fields. Those two are taken from the decoded objects themselves: {@code <field>()} for
 * records, {@link Message#unknownTaggedFields()} of the message and of every nested struct.
 * Member names and types come from the definitions in the same jar ({@link Specs}).
 */
final class Mapping {
  static final JsonNodeFactory F = JsonNodeFactory.instance;
  static final HexFormat HEX = HexFormat.of();
  static final String UNKNOWN_TAGS = "_unknownTaggedFields";

  private Mapping() {}

  /** The definition a generated data class was generated from: ProduceRequestData -> ProduceRequest. */
  static Specs.Message specOf(Class<?> dataClass) {
    String n = dataClass.getSimpleName();
    if (!n.endsWith("Data")) {
      throw new IllegalStateException("not a generated message class: " + dataClass.getName());
    }
    return Specs.get(n.substring(0, n.length() - 4));
  }

  // ---- Kafka's converters, by reflection ----

  private static final Map<Class<?>, Method> WRITERS = new HashMap<>();
  private static final Map<Class<?>, Method> READERS = new HashMap<>();

  private static Class<?> converterOf(Class<?> dataClass) throws ClassNotFoundException {
    return Class.forName(dataClass.getName() + "JsonConverter", true, dataClass.getClassLoader());
  }

  /** {@code <Message>JsonConverter.write(data, version, true)}. */
  static JsonNode converterWrite(Message data, short version) throws Throwable {
    Method m = WRITERS.get(data.getClass());
    if (m == null) {
      m = converterOf(data.getClass()).getMethod("write", data.getClass(), short.class, boolean.class);
      WRITERS.put(data.getClass(), m);
    }
    return (JsonNode) invoke(m, data, version, true);
  }

  /** {@code <Message>JsonConverter.read(node, version)}. */
  static Message converterRead(Class<?> dataClass, JsonNode node, short version) throws Throwable {
    Method m = READERS.get(dataClass);
    if (m == null) {
      m = converterOf(dataClass).getMethod("read", JsonNode.class, short.class);
      READERS.put(dataClass, m);
    }
    return (Message) invoke(m, node, version);
  }

  private static Object invoke(Method m, Object... args) throws Throwable {
    try {
      return m.invoke(null, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  // ---- accessors of the generated classes: field "TopicData" is topicData() ----

  private static final Map<Class<?>, Map<String, Method>> GETTERS = new HashMap<>();

  static Object get(Object obj, String javaName) {
    Map<String, Method> byName = GETTERS.computeIfAbsent(obj.getClass(), k -> new HashMap<>());
    Method m = byName.get(javaName);
    try {
      if (m == null) {
        m = obj.getClass().getMethod(javaName);
        byName.put(javaName, m);
      }
      return m.invoke(obj);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("no accessor " + obj.getClass().getName() + "." + javaName + "()", e);
    }
  }

  // ---- decoded message -> kwire's JSON mapping ----

  /** The JSON mapping of a decoded message (a body or a header) at {@code version}. */
  static ObjectNode toKwire(Message data, short version) throws Throwable {
    JsonNode kafka = converterWrite(data, version);
    return struct(kafka, data, specOf(data.getClass()).top, specOf(data.getClass()).name);
  }

  private static ObjectNode struct(JsonNode kafka, Object obj, Specs.Struct st, String path) {
    if (!kafka.isObject()) {
      throw new IllegalStateException(path + ": the converter wrote " + kafka.getNodeType() + ", not an object");
    }
    ObjectNode out = F.objectNode();
    for (Map.Entry<String, JsonNode> e : kafka.properties()) {
      Specs.Field f = st.byJavaName.get(e.getKey());
      if (f == null) {
        String k = e.getKey();
        if (k.endsWith("SizeInBytes")) {  // KIP-673 logging form of a records field
          Specs.Field r = st.byJavaName.get(k.substring(0, k.length() - "SizeInBytes".length()));
          if (r != null && "records".equals(r.type)) {
            out.set(r.name, records(get(obj, r.javaName)));
            continue;
          }
        }
        throw new IllegalStateException(path + ": the converter wrote a member '" + k
            + "' that the definition does not have");
      }
      out.set(f.name, value(f, e.getValue(), obj, path + "." + f.name));
    }
    List<RawTaggedField> unknown = ((Message) obj).unknownTaggedFields();
    if (unknown != null && !unknown.isEmpty()) {
      // FORMAT.md lists them in ascending tag order; Java keeps the frame's order (and every
      // repetition): a stable sort keeps both tags of a repeated one. A tag is a uvarint up
      // to 2^32 - 1 that Java holds in an int: compared and printed unsigned (tags of 2^31
      // and above were printed negative and sorted first; found by kwire diff).
      List<RawTaggedField> sorted = new ArrayList<>(unknown);
      sorted.sort(Comparator.comparingLong(t -> Integer.toUnsignedLong(t.tag())));
      ArrayNode a = out.putArray(UNKNOWN_TAGS);
      for (RawTaggedField t : sorted) {
        ObjectNode o = a.addObject();
        o.put("tag", Integer.toUnsignedLong(t.tag()));
        o.put("data", HEX.formatHex(t.data()));
      }
    }
    return out;
  }

  private static JsonNode value(Specs.Field f, JsonNode v, Object parent, String path) {
    if ("records".equals(f.type) && !f.array) {
      return records(get(parent, f.javaName));
    }
    if (v.isNull()) {
      return NullNode.instance;
    }
    if (f.array) {
      if (!v.isArray()) {
        throw new IllegalStateException(path + ": the converter wrote " + v.getNodeType() + ", not an array");
      }
      ArrayNode a = F.arrayNode();
      if (f.isStruct()) {
        Iterator<?> objs = ((Iterable<?>) get(parent, f.javaName)).iterator();
        int i = 0;
        for (JsonNode e : v) {
          a.add(struct(e, objs.next(), f.struct(), path + "[" + i++ + "]"));
        }
      } else {
        for (JsonNode e : v) {
          a.add(scalar(f.type, e, path));
        }
      }
      return a;
    }
    if (f.isStruct()) {
      return struct(v, get(parent, f.javaName), f.struct(), path);
    }
    return scalar(f.type, v, path);
  }

  private static JsonNode records(Object r) {
    if (r == null) {
      return NullNode.instance;
    }
    ByteBuffer b = Compat.memoryRecordsBuffer(r);
    if (b != null) {
      byte[] bytes = new byte[b.remaining()];
      b.get(bytes);
      return TextNode.valueOf(HEX.formatHex(bytes));
    }
    throw new IllegalStateException("records of class " + r.getClass().getName()
        + " (" + Compat.sizeInBytes(r) + " bytes) cannot be read back");
  }

  private static JsonNode scalar(String type, JsonNode v, String path) {
    switch (type) {
      case "bool":
        expect(v.isBoolean(), v, type, path);
        return BooleanNode.valueOf(v.booleanValue());
      case "int8":
      case "int16":
      case "uint16":
      case "int32":
        expect(v.isIntegralNumber() && v.canConvertToInt(), v, type, path);
        return IntNode.valueOf(v.intValue());
      case "uint32":
        expect(v.isIntegralNumber(), v, type, path);
        return LongNode.valueOf(v.longValue());
      case "int64":
        expect(v.isIntegralNumber() && v.canConvertToLong(), v, type, path);
        return TextNode.valueOf(Long.toString(v.longValue()));
      case "float64":
        expect(v.isNumber(), v, type, path);
        return float64(v.doubleValue());
      case "string":
        expect(v.isTextual(), v, type, path);
        return TextNode.valueOf(v.textValue());
      case "uuid":
        expect(v.isTextual(), v, type, path);
        // Uuid.toString() is base64url without padding of the 16 bytes in wire order.
        return TextNode.valueOf(HEX.formatHex(Base64.getUrlDecoder().decode(v.textValue())));
      case "bytes":
        expect(v.isBinary(), v, type, path);
        try {
          return TextNode.valueOf(HEX.formatHex(v.binaryValue()));
        } catch (java.io.IOException e) {
          throw new IllegalStateException(path + ": " + e, e);
        }
      default:
        throw new IllegalStateException(path + ": unknown type " + type);
    }
  }

  private static void expect(boolean ok, JsonNode v, String type, String path) {
    if (!ok) {
      throw new IllegalStateException(path + ": the converter wrote " + v.getNodeType() + " for a " + type);
    }
  }

  /** FORMAT.md: finite numbers as numbers, "Infinity", "-Infinity", "NaN", "NaN:0x<bits>". */
  static JsonNode float64(double d) {
    long bits = Double.doubleToRawLongBits(d);
    if (Double.isNaN(d)) {
      return TextNode.valueOf(bits == 0x7ff8000000000000L ? "NaN" : String.format("NaN:0x%016x", bits));
    }
    if (Double.isInfinite(d)) {
      return TextNode.valueOf(d > 0 ? "Infinity" : "-Infinity");
    }
    return DoubleNode.valueOf(d);
  }

  // ---- kwire's JSON mapping -> a message, through Kafka's converters ----

  /** Thrown for JSON that is not a message of the definition (answered "rejected"). */
  static final class BadJson extends Exception {
    private static final long serialVersionUID = 1L;

    BadJson(String m) {
      super(m);
    }
  }

  /** A message of {@code dataClass} at {@code version} from its JSON mapping. */
  static Message fromKwire(Class<?> dataClass, JsonNode kw, short version) throws Throwable {
    Specs.Message spec = specOf(dataClass);
    JsonNode kafka = toKafka(kw, spec.top, spec.name);
    Message m = converterRead(dataClass, kafka, version);
    addUnknownTags(kw, m, spec.top);
    return m;
  }

  private static ObjectNode toKafka(JsonNode kw, Specs.Struct st, String path) throws BadJson {
    if (!kw.isObject()) {
      throw new BadJson(path + ": " + kw.getNodeType() + " where a struct (object) belongs");
    }
    ObjectNode out = F.objectNode();
    for (Map.Entry<String, JsonNode> e : kw.properties()) {
      if (e.getKey().equals(UNKNOWN_TAGS)) {
        continue;
      }
      Specs.Field f = st.byName.get(e.getKey());
      if (f == null) {
        throw new BadJson(path + ": no field " + e.getKey() + " in the definition");
      }
      out.set(f.javaName, kafkaValue(f, e.getValue(), path + "." + f.name));
    }
    return out;
  }

  private static JsonNode kafkaValue(Specs.Field f, JsonNode v, String path) throws BadJson {
    if (v.isNull()) {
      return NullNode.instance;
    }
    if (f.array) {
      if (!v.isArray()) {
        throw new BadJson(path + ": " + v.getNodeType() + " where an array belongs");
      }
      ArrayNode a = F.arrayNode();
      int i = 0;
      for (JsonNode e : v) {
        String p = path + "[" + i++ + "]";
        a.add(f.isStruct() ? toKafka(e, f.struct(), p) : kafkaScalar(f.type, e, p));
      }
      return a;
    }
    if (f.isStruct()) {
      return toKafka(v, f.struct(), path);
    }
    return kafkaScalar(f.type, v, path);
  }

  private static JsonNode kafkaScalar(String type, JsonNode v, String path) throws BadJson {
    try {
      switch (type) {
        case "bool":
          need(v.isBoolean(), v, type, path);
          return BooleanNode.valueOf(v.booleanValue());
        case "int8":
        case "int16":
        case "uint16":
        case "int32":
          need(v.isIntegralNumber() && v.canConvertToInt(), v, type, path);
          return IntNode.valueOf(v.intValue());
        case "uint32":
        case "int64":
          if (v.isTextual()) {
            return LongNode.valueOf(Long.parseLong(v.textValue()));
          }
          need(v.isIntegralNumber() && v.canConvertToLong(), v, type, path);
          return LongNode.valueOf(v.longValue());
        case "float64":
          if (v.isTextual()) {
            String s = v.textValue();
            switch (s) {
              case "NaN":
                return DoubleNode.valueOf(Double.longBitsToDouble(0x7ff8000000000000L));
              case "Infinity":
                return DoubleNode.valueOf(Double.POSITIVE_INFINITY);
              case "-Infinity":
                return DoubleNode.valueOf(Double.NEGATIVE_INFINITY);
              default:
                need(s.startsWith("NaN:0x") && s.length() == 22, v, type, path);
                return DoubleNode.valueOf(Double.longBitsToDouble(Long.parseUnsignedLong(s.substring(6), 16)));
            }
          }
          need(v.isNumber(), v, type, path);
          return DoubleNode.valueOf(v.doubleValue());
        case "string":
          need(v.isTextual(), v, type, path);
          return TextNode.valueOf(v.textValue());
        case "uuid": {
          need(v.isTextual() && v.textValue().length() == 32, v, type, path);
          ByteBuffer b = ByteBuffer.wrap(HEX.parseHex(v.textValue()));
          return TextNode.valueOf(new Uuid(b.getLong(), b.getLong()).toString());
        }
        case "bytes":
        case "records":
          need(v.isTextual(), v, type, path);
          return BinaryNode.valueOf(HEX.parseHex(v.textValue()));
        default:
          throw new IllegalStateException(path + ": unknown type " + type);
      }
    } catch (IllegalArgumentException e) {  // NumberFormatException too
      throw new BadJson(path + ": " + e.getMessage());
    }
  }

  private static void need(boolean ok, JsonNode v, String type, String path) throws BadJson {
    if (!ok) {
      throw new BadJson(path + ": " + v + " is not a " + type);
    }
  }

  /** The converters ignore "_unknownTaggedFields": add them to the objects they made. */
  private static void addUnknownTags(JsonNode kw, Object obj, Specs.Struct st) throws BadJson {
    for (Map.Entry<String, JsonNode> e : kw.properties()) {
      JsonNode v = e.getValue();
      if (e.getKey().equals(UNKNOWN_TAGS)) {
        List<RawTaggedField> list = ((Message) obj).unknownTaggedFields();
        for (JsonNode t : v) {
          if (!t.path("tag").canConvertToInt() || !t.path("data").isTextual()) {
            throw new BadJson(UNKNOWN_TAGS + ": " + t + " is not {\"tag\": N, \"data\": hex}");
          }
          list.add(new RawTaggedField(t.get("tag").intValue(), HEX.parseHex(t.get("data").textValue())));
        }
        continue;
      }
      Specs.Field f = st.byName.get(e.getKey());
      if (f == null || !f.isStruct() || v.isNull()) {
        continue;
      }
      Object child = get(obj, f.javaName);
      if (f.array) {
        Iterator<?> objs = ((Iterable<?>) child).iterator();
        for (JsonNode el : v) {
          addUnknownTags(el, objs.next(), f.struct());
        }
      } else {
        addUnknownTags(v, child, f.struct());
      }
    }
  }
}
