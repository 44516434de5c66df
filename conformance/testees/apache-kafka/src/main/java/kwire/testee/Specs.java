package kwire.testee;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Kafka's message definitions as kafka-clients ships them (the jar's common/message/*.json):
 * only what the JSON mapping needs, i.e. each struct's field names (the definition names,
 * which the generated JsonConverter classes write with a lower-case first letter) and types.
 * Which fields exist at a version is left to Kafka's own classes.
 */
final class Specs {
  static final Set<String> PRIMITIVES = Set.of("bool", "int8", "int16", "uint16", "int32",
      "uint32", "int64", "float64", "string", "bytes", "records", "uuid");

  /** A version range of the definitions: "3+", "0-7", "5", "none". */
  static final class Range {
    final int lo;
    final int hi;

    Range(int lo, int hi) {
      this.lo = lo;
      this.hi = hi;
    }

    static Range parse(String s) {
      if (s == null || s.equals("none")) {
        return new Range(0, -1);
      }
      if (s.endsWith("+")) {
        return new Range(Integer.parseInt(s.substring(0, s.length() - 1)), Short.MAX_VALUE);
      }
      int dash = s.indexOf('-');
      if (dash > 0) {
        return new Range(Integer.parseInt(s.substring(0, dash)), Integer.parseInt(s.substring(dash + 1)));
      }
      int v = Integer.parseInt(s);
      return new Range(v, v);
    }

    boolean contains(int v) {
      return v >= lo && v <= hi;
    }
  }

  /** A field of a struct. {@code type} is the element type for arrays. */
  static final class Field {
    final String name;      // as in the definition: "TopicId"
    final String javaName;  // what the converters and accessors use: "topicId"
    final boolean array;
    final String type;      // "int32", "uuid", ... or a struct's name
    Range versions = new Range(0, Short.MAX_VALUE);
    Range nullable = new Range(0, -1);
    Range tagged = new Range(0, -1);
    private final Message owner;

    Field(String name, boolean array, String type, Message owner) {
      this.name = name;
      this.javaName = lowerCaseFirst(name);
      this.array = array;
      this.type = type;
      this.owner = owner;
    }

    boolean isStruct() {
      return !PRIMITIVES.contains(type);
    }

    /** The fields of a struct-typed field (or of its elements). */
    Struct struct() {
      Struct s = owner.structs.get(type);
      if (s == null) {
        throw new IllegalStateException("definition " + owner.name + ": no struct " + type);
      }
      return s;
    }
  }

  /** A struct: the fields in definition order, by definition name and by Java name. */
  static final class Struct {
    final List<Field> fields = new ArrayList<>();
    final Map<String, Field> byName = new HashMap<>();
    final Map<String, Field> byJavaName = new HashMap<>();

    void add(Field f) {
      fields.add(f);
      byName.put(f.name, f);
      byJavaName.put(f.javaName, f);
    }
  }

  /** One definition file. */
  static final class Message {
    final String name;
    Range flexible = new Range(0, -1);
    final Struct top = new Struct();
    final Map<String, Struct> structs = new HashMap<>();

    Message(String name) {
      this.name = name;
    }
  }

  private static final JsonMapper MAPPER = JsonMapper.builder()
      .enable(JsonReadFeature.ALLOW_JAVA_COMMENTS)
      .enable(JsonReadFeature.ALLOW_TRAILING_COMMA)
      .build();
  private static final Map<String, Message> CACHE = new HashMap<>();

  private Specs() {}

  static String lowerCaseFirst(String s) {
    return s.isEmpty() ? s : Character.toLowerCase(s.charAt(0)) + s.substring(1);
  }

  /** The definition named {@code name} ("ProduceRequest", "RequestHeader"). */
  static synchronized Message get(String name) {
    Message m = CACHE.get(name);
    if (m == null) {
      m = load(name);
      CACHE.put(name, m);
    }
    return m;
  }

  private static Message load(String name) {
    String path = "common/message/" + name + ".json";
    JsonNode root;
    try (InputStream in = Specs.class.getClassLoader().getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException("kafka-clients has no " + path);
      }
      root = MAPPER.readTree(in);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + path + ": " + e, e);
    }
    Message m = new Message(name);
    m.flexible = Range.parse(root.has("flexibleVersions") ? root.get("flexibleVersions").asText() : null);
    // Struct types: declared inline in a field ("fields") or in "commonStructs".
    for (JsonNode cs : iter(root.get("commonStructs"))) {
      Struct s = new Struct();
      m.structs.put(cs.get("name").asText(), s);
      readFields(m, s, cs.get("fields"));
    }
    readFields(m, m.top, root.get("fields"));
    return m;
  }

  private static void readFields(Message m, Struct into, JsonNode fields) {
    for (JsonNode f : iter(fields)) {
      String t = f.get("type").asText();
      boolean array = t.startsWith("[]");
      String elem = array ? t.substring(2) : t;
      Field field = new Field(f.get("name").asText(), array, elem, m);
      field.tagged = Range.parse(f.has("taggedVersions") ? f.get("taggedVersions").asText() : null);
      field.versions = f.has("versions") ? Range.parse(f.get("versions").asText()) : field.tagged;
      field.nullable = Range.parse(f.has("nullableVersions") ? f.get("nullableVersions").asText() : null);
      into.add(field);
      if (f.has("fields") && !PRIMITIVES.contains(elem)) {
        Struct s = m.structs.get(elem);
        if (s == null) {
          s = new Struct();
          m.structs.put(elem, s);
          readFields(m, s, f.get("fields"));
        }
      }
    }
  }

  private static Iterable<JsonNode> iter(JsonNode n) {
    if (n == null || !n.isArray()) {
      return Collections.emptyList();
    }
    return n;
  }
}
