package kwire.testee;

import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The Apache Kafka testee for kwire's conformance runner: conformance/README.md, "Testing
 * another implementation: the testee protocol", protocol version 1. One JSON object a line on
 * stdin, one answer a line on stdout. The frames go through Kafka's own generated classes of
 * kafka-clients ({@link Frames}), the JSON through Kafka's own generated converters
 * ({@link Mapping}). See README.md beside pom.xml.
 */
public final class Testee {
  static final JsonMapper JSON = JsonMapper.builder()
      .enable(JsonWriteFeature.ESCAPE_NON_ASCII)  // one answer, one line, whatever the strings hold
      .build();

  private Testee() {}

  public static void main(String[] args) throws Throwable {
    // The protocol owns stdout; anything else that prints goes to stderr.
    PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
    System.setOut(System.err);
    if (args.length > 0 && args[0].equals("--generate")) {
      int rc = Generate.run(out, System.err);
      out.flush();
      System.exit(rc);
    }
    if (args.length > 0 && args[0].equals("--versions")) {
      Frames.printVersions(out);
      out.flush();
      return;
    }
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8), 1 << 16);
    String line;
    while ((line = in.readLine()) != null) {
      if (line.isBlank()) {
        continue;
      }
      ObjectNode answer = handle(line);
      out.print(JSON.writeValueAsString(answer));
      out.print('\n');
      out.flush();
    }
  }

  static ObjectNode handle(String line) {
    JsonNode q;
    try {
      q = JSON.readTree(line);
    } catch (IOException e) {
      ObjectNode a = JSON.createObjectNode();
      a.put("seq", -1);
      a.put("result", "crashed");
      a.put("error", "testee: the request is not JSON: " + e.getMessage());
      return a;
    }
    if ("hello".equals(q.path("type").asText())) {
      ObjectNode a = JSON.createObjectNode();
      a.put("type", "hello");
      a.put("protocol", 1);
      a.put("name", "apache-kafka");
      a.put("version", Compat.kafkaVersion()
          + (Fallback.command() != null ? " (versions it lacks: " + Fallback.release() + ")" : ""));
      a.putArray("operations").add("decode").add("encode").add("roundtrip").add("validate");
      return a;
    }
    ObjectNode a = JSON.createObjectNode();
    a.set("seq", q.get("seq"));
    try {
      Frames.Request r = new Frames.Request(q);
      if (Fallback.command() != null) {
        try {
          Frames.supported(r.apiKey, r.version);
        } catch (Frames.Unsupported u) {
          // A version this release removed (or never had): the older release answers.
          return Fallback.ask(line);
        }
      }
      switch (q.path("op").asText()) {
        case "decode": {
          Frames.Decoded d = Frames.decode(r);
          ArrayNode refusals = r.request ? Broker.refusals(d.body, d.bodyVersion) : null;
          a.put("result", refusals != null && !refusals.isEmpty() ? "refused" : "ok");
          a.set("header", Mapping.toKwire(d.header, d.headerVersion));
          a.set("body", Mapping.toKwire(d.body, d.bodyVersion));
          if (d.bodyVersion != r.version) {
            a.put("body_version", d.bodyVersion);
          }
          if (refusals != null && !refusals.isEmpty()) {
            a.set("refusals", refusals);
          }
          break;
        }
        case "roundtrip": {
          Frames.Decoded d = Frames.decode(r);
          byte[] f = Frames.encode(d.header, d.headerVersion, d.body, d.bodyVersion, "re-encoding what Kafka read");
          a.put("result", "ok");
          a.put("frame", Mapping.HEX.formatHex(f));
          break;
        }
        case "validate": {
          // A request is judged as a broker judges it: read, then each Produce partition's
          // records checked by Kafka's own calls (Broker); a refused partition is "refused".
          Frames.Decoded d = Frames.decode(r);
          ArrayNode refusals = r.request ? Broker.refusals(d.body, d.bodyVersion) : null;
          if (refusals != null && !refusals.isEmpty()) {
            a.put("result", "refused");
            a.set("refusals", refusals);
          } else {
            a.put("result", "ok");
          }
          break;
        }
        case "encode":
          a.put("result", "ok");
          a.put("frame", Mapping.HEX.formatHex(Frames.encodeJson(r, q)));
          break;
        default:
          a.put("result", "unsupported");
          a.put("reason", "unknown operation '" + q.path("op").asText() + "'");
      }
    } catch (Frames.Unsupported u) {
      a.retain("seq");
      a.put("result", "unsupported");
      a.put("reason", u.getMessage());
    } catch (Frames.Rejected rej) {
      a.retain("seq");
      a.put("result", "rejected");
      a.put("error", rej.getMessage());
      if (rej.kind != null) {
        a.put("kind", rej.kind);
      }
      if (rej.offset >= 0) {
        a.put("offset", rej.offset);
      }
    } catch (Throwable t) {
      // An Error from Kafka's code (stack overflow, out of memory), or a bug of this testee.
      a.retain("seq");
      a.put("result", "crashed");
      a.put("error", t.toString() + at(t));
    }
    return a;
  }

  /**
   * The older release (kafka-clients 3.9.2) in a second JVM for the versions this one does not
   * have: KIP-896's removals in 4.0 and the ZooKeeper-only APIs. run.sh builds it and passes
   * its command line in the system property kwire.testee.fallback (tab-separated) and its
   * release in kwire.testee.fallback.release; started on first use, fed the same request
   * lines, its answers passed on as they are.
   */
  static final class Fallback {
    private static Process process;
    private static BufferedReader answers;
    private static OutputStream requests;

    static List<String> command() {
      String c = System.getProperty("kwire.testee.fallback", "");
      return c.isEmpty() ? null : new ArrayList<>(Arrays.asList(c.split("\t")));
    }

    static String release() {
      return "Apache Kafka " + System.getProperty("kwire.testee.fallback.release", "?");
    }

    static ObjectNode ask(String line) throws IOException {
      if (process == null || !process.isAlive()) {
        ProcessBuilder pb = new ProcessBuilder(command());
        pb.redirectError(ProcessBuilder.Redirect.INHERIT);
        process = pb.start();
        answers = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        requests = process.getOutputStream();
      }
      requests.write((line + "\n").getBytes(StandardCharsets.UTF_8));
      requests.flush();
      String answer = answers.readLine();
      if (answer == null) {
        process.destroy();
        process = null;
        throw new IOException(release() + " (the second JVM) ended without answering");
      }
      return (ObjectNode) JSON.readTree(answer);
    }
  }

  private static String at(Throwable t) {
    StackTraceElement[] st = t.getStackTrace();
    return st.length == 0 ? "" : " at " + st[0];
  }
}
