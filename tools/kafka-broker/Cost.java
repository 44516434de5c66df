// The cost of a relay in front of a broker (issue 32 item 6), measured with Apache Kafka's
// own classes: Produce requests of 1 MiB batches (each codec) and small Metadata requests,
// sent over plain sockets to several targets (the broker itself, a TCP relay, kwire proxy
// with checking off and on), interleaved in rounds so that every target sees the same
// machine. Run by tools/proxy/cost.sh, which starts the broker and the relays.
//
//   java -cp CLASSPATH Cost --targets NAME=HOST:PORT,... --bootstrap HOST:PORT
//        [--codecs none,gzip,snappy,lz4,zstd] [--rounds 3] [--seconds 3] [--in-flight 5]
//        [--latency-samples 2000] [--json FILE]
//
// Produce: acks=1, Produce v12 (topic by name), one partition, one batch a request of
// 1,024 records of 1,024 bytes (1 MiB before compression; text-like values, so every codec
// has something to compress), --in-flight requests pipelined on one connection. Throughput is
// the uncompressed record bytes acknowledged per second (MB/s, 10^6), and the wire bytes.
// Latency: Metadata v12 for the one topic, one request at a time on one connection; the
// round trip from before the write to after the whole response is read, in microseconds
// (p50, p99). Every response is parsed (AbstractResponse.parseResponse) and must carry
// error code 0, or the run fails.
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;

public final class Cost {
  static final String TOPIC = "kwire-cost";
  static final short PRODUCE_VERSION = 12;
  static final short METADATA_VERSION = 12;
  static final int RECORDS = 1024;
  static final int RECORD_BYTES = 1024;

  /** One connection to one target: size-prefixed frames out, whole frames in. */
  static final class Conn implements AutoCloseable {
    final Socket socket;
    final OutputStream out;
    final DataInputStream in;
    int correlation = 0;

    Conn(String hostPort) throws IOException {
      int colon = hostPort.lastIndexOf(':');
      socket = new Socket();
      socket.setTcpNoDelay(true);
      socket.connect(new InetSocketAddress(hostPort.substring(0, colon),
          Integer.parseInt(hostPort.substring(colon + 1))), 10_000);
      socket.setSoTimeout(60_000);
      out = socket.getOutputStream();
      in = new DataInputStream(socket.getInputStream());
    }

    RequestHeader send(AbstractRequest request, ApiKeys key, short version) throws IOException {
      RequestHeader h = new RequestHeader(key, version, "kwire-cost", ++correlation);
      ByteBuffer body = request.serializeWithHeader(h);
      byte[] frame = new byte[4 + body.remaining()];
      ByteBuffer.wrap(frame).putInt(body.remaining()).put(body);
      out.write(frame);
      return h;
    }

    AbstractResponse receive(RequestHeader h) throws IOException {
      int n = in.readInt();
      byte[] b = new byte[n];
      in.readFully(b);
      return AbstractResponse.parseResponse(ByteBuffer.wrap(b), h);
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }

  static byte[] textValue(Random rnd) {
    String[] words = {"kafka", "broker", "partition", "offset", "record", "batch", "topic",
        "consumer", "producer", "leader", "replica", "segment", "epoch", "commit", "fetch"};
    StringBuilder sb = new StringBuilder(RECORD_BYTES + 16);
    while (sb.length() < RECORD_BYTES) {
      sb.append(words[rnd.nextInt(words.length)]).append(' ').append(rnd.nextInt(100000)).append(' ');
    }
    return sb.substring(0, RECORD_BYTES).getBytes(StandardCharsets.US_ASCII);
  }

  static ProduceRequest produceRequest(CompressionType type, Random rnd) {
    SimpleRecord[] records = new SimpleRecord[RECORDS];
    for (int i = 0; i < RECORDS; i++) records[i] = new SimpleRecord(0L, null, textValue(rnd));
    MemoryRecords batch = MemoryRecords.withRecords(Compression.of(type).build(), records);
    ProduceRequestData.TopicProduceDataCollection topics =
        new ProduceRequestData.TopicProduceDataCollection();
    topics.add(new ProduceRequestData.TopicProduceData().setName(TOPIC).setPartitionData(
        List.of(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(batch))));
    ProduceRequestData data =
        new ProduceRequestData().setAcks((short) 1).setTimeoutMs(30_000).setTopicData(topics);
    return new ProduceRequest.Builder(PRODUCE_VERSION, PRODUCE_VERSION, data).build(PRODUCE_VERSION);
  }

  static void checkProduce(AbstractResponse r) {
    for (ProduceResponseData.TopicProduceResponse t : ((ProduceResponse) r).data().responses()) {
      for (ProduceResponseData.PartitionProduceResponse p : t.partitionResponses()) {
        if (p.errorCode() != 0) {
          throw new IllegalStateException("produce answered " + Errors.forCode(p.errorCode()));
        }
      }
    }
  }

  /** Produce for `seconds` on one connection; returns {record MB/s, wire MB/s, requests}. */
  static double[] produce(String target, ProduceRequest request, int wireBytes, double seconds,
      int inFlight) throws IOException {
    try (Conn c = new Conn(target)) {
      List<RequestHeader> pending = new ArrayList<>();
      long acked = 0;
      long start = System.nanoTime();
      long end = start + (long) (seconds * 1e9);
      while (true) {
        boolean more = System.nanoTime() < end;
        while (more && pending.size() < inFlight) {
          pending.add(c.send(request, ApiKeys.PRODUCE, PRODUCE_VERSION));
        }
        if (pending.isEmpty()) break;
        checkProduce(c.receive(pending.remove(0)));
        acked++;
      }
      double elapsed = (System.nanoTime() - start) / 1e9;
      return new double[] {acked * (double) RECORDS * RECORD_BYTES / elapsed / 1e6,
          acked * (double) wireBytes / elapsed / 1e6, acked};
    }
  }

  /** `samples` Metadata round trips, one at a time; returns the sorted times in µs. */
  static double[] latency(String target, int samples) throws IOException {
    MetadataRequest request =
        new MetadataRequest.Builder(List.of(TOPIC), false).build(METADATA_VERSION);
    double[] us = new double[samples];
    try (Conn c = new Conn(target)) {
      for (int i = 0; i < 200; i++) c.receive(c.send(request, ApiKeys.METADATA, METADATA_VERSION));
      for (int i = 0; i < samples; i++) {
        long t0 = System.nanoTime();
        RequestHeader h = c.send(request, ApiKeys.METADATA, METADATA_VERSION);
        MetadataResponse r = (MetadataResponse) c.receive(h);
        us[i] = (System.nanoTime() - t0) / 1e3;
        if (!r.errors().isEmpty()) throw new IllegalStateException("metadata answered " + r.errors());
      }
    }
    Arrays.sort(us);
    return us;
  }

  static double pct(double[] sorted, double p) {
    return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p / 100.0 * sorted.length) - 1)];
  }

  static double median(List<Double> xs) {
    double[] a = xs.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
  }

  public static void main(String[] argv) throws Exception {
    Map<String, String> opt = new LinkedHashMap<>();
    for (int i = 0; i + 1 < argv.length; i += 2) opt.put(argv[i].replaceFirst("^--", ""), argv[i + 1]);
    Map<String, String> targets = new LinkedHashMap<>();
    for (String t : opt.getOrDefault("targets", "").split(",")) {
      String[] kv = t.split("=", 2);
      if (kv.length == 2) targets.put(kv[0], kv[1]);
    }
    if (targets.isEmpty() || !opt.containsKey("bootstrap")) {
      System.err.println("usage: Cost --targets NAME=HOST:PORT,... --bootstrap HOST:PORT [...]");
      System.exit(2);
    }
    List<String> codecs = List.of(opt.getOrDefault("codecs", "none,gzip,snappy,lz4,zstd").split(","));
    int rounds = Integer.parseInt(opt.getOrDefault("rounds", "3"));
    double seconds = Double.parseDouble(opt.getOrDefault("seconds", "3"));
    int inFlight = Integer.parseInt(opt.getOrDefault("in-flight", "5"));
    int samples = Integer.parseInt(opt.getOrDefault("latency-samples", "2000"));

    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, opt.get("bootstrap"));
    try (Admin admin = Admin.create(p)) {
      // A 1 MiB batch plus its record overhead is above the default max.message.bytes
      // (1,048,588): the topic allows 2 MiB.
      admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1)
          .configs(Map.of("max.message.bytes", "2097152")))).all().get();
    } catch (java.util.concurrent.ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) throw e;
    }

    Random rnd = new Random(42);
    Map<String, ProduceRequest> requests = new LinkedHashMap<>();
    Map<String, Integer> wire = new LinkedHashMap<>();
    for (String codec : codecs) {
      ProduceRequest r = produceRequest(CompressionType.forName(codec), rnd);
      requests.put(codec, r);
      wire.put(codec, r.serializeWithHeader(new RequestHeader(ApiKeys.PRODUCE, PRODUCE_VERSION,
          "kwire-cost", 0)).remaining() + 4);
    }
    // Warm-up: every target, every codec, once (JIT, the broker's log segment, the proxy).
    for (String codec : codecs) {
      for (String t : targets.values()) produce(t, requests.get(codec), wire.get(codec), 0.5, inFlight);
    }
    Map<String, Map<String, List<Double>>> mbs = new LinkedHashMap<>();
    Map<String, Map<String, List<Double>>> wireMbs = new LinkedHashMap<>();
    Map<String, List<double[]>> lat = new LinkedHashMap<>();
    for (int round = 0; round < rounds; round++) {
      for (String codec : codecs) {
        for (Map.Entry<String, String> t : targets.entrySet()) {
          double[] r = produce(t.getValue(), requests.get(codec), wire.get(codec), seconds, inFlight);
          mbs.computeIfAbsent(codec, k -> new LinkedHashMap<>())
              .computeIfAbsent(t.getKey(), k -> new ArrayList<>()).add(r[0]);
          wireMbs.computeIfAbsent(codec, k -> new LinkedHashMap<>())
              .computeIfAbsent(t.getKey(), k -> new ArrayList<>()).add(r[1]);
        }
      }
      for (Map.Entry<String, String> t : targets.entrySet()) {
        lat.computeIfAbsent(t.getKey(), k -> new ArrayList<>()).add(latency(t.getValue(), samples));
      }
    }

    Map<String, Object> report = new LinkedHashMap<>();
    report.put("rounds", rounds);
    report.put("seconds", seconds);
    report.put("in_flight", inFlight);
    report.put("batch_records", RECORDS);
    report.put("record_bytes", RECORD_BYTES);
    List<Object> produceRows = new ArrayList<>();
    System.out.printf(Locale.ROOT, "produce, 1 MiB batches (1,024 x 1 KiB records), acks=1, %d in flight;"
        + " median of %d rounds x %.0f s, MB/s of records (wire MB/s)%n", inFlight, rounds, seconds);
    System.out.printf(Locale.ROOT, "%-8s", "codec");
    for (String t : targets.keySet()) System.out.printf(Locale.ROOT, " %22s", t);
    System.out.println();
    for (String codec : codecs) {
      System.out.printf(Locale.ROOT, "%-8s", codec);
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("codec", codec);
      row.put("wire_batch_bytes", wire.get(codec));
      Map<String, Object> perTarget = new LinkedHashMap<>();
      for (String t : targets.keySet()) {
        double m = median(mbs.get(codec).get(t));
        double w = median(wireMbs.get(codec).get(t));
        System.out.printf(Locale.ROOT, " %12.1f (%7.1f)", m, w);
        perTarget.put(t, Map.of("record_mb_s", m, "wire_mb_s", w, "rounds", mbs.get(codec).get(t)));
      }
      row.put("targets", perTarget);
      produceRows.add(row);
      System.out.println();
    }
    report.put("produce", produceRows);
    Map<String, Object> latencies = new LinkedHashMap<>();
    System.out.printf(Locale.ROOT, "%nMetadata v12 round trip, one at a time, %d samples x %d rounds (us)%n",
        samples, rounds);
    System.out.printf(Locale.ROOT, "%-22s %9s %9s %9s%n", "target", "p50", "p99", "p99.9");
    for (Map.Entry<String, List<double[]>> e : lat.entrySet()) {
      double[] all = e.getValue().stream().flatMapToDouble(Arrays::stream).sorted().toArray();
      System.out.printf(Locale.ROOT, "%-22s %9.1f %9.1f %9.1f%n", e.getKey(), pct(all, 50), pct(all, 99),
          pct(all, 99.9));
      latencies.put(e.getKey(), Map.of("p50", pct(all, 50), "p99", pct(all, 99), "p999", pct(all, 99.9),
          "samples", all.length));
    }
    report.put("latency_us", latencies);
    if (opt.containsKey("json")) {
      new ObjectMapper().writerWithDefaultPrettyPrinter().writeValue(Path.of(opt.get("json")).toFile(), report);
    }
  }
}
