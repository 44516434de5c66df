// Apache Kafka's own Java client (org.apache.kafka:kafka-clients, the version broker.sh runs)
// across every client-facing API a single-node 4.4 broker serves: producers (each codec,
// idempotent, transactional with transaction.version 2 and 1), consumers (classic and
// KIP-848 groups, leader-epoch validation), a share consumer (KIP-932) and the Admin API.
// tools/kafka-broker/clients.sh java runs it (tools/proxy/live.sh through kwire proxy).
// Every step prints "ok" or "FAIL" with its time; an API the broker refuses for a reason
// that holds on one node (ElectLeaders, a reassignment to a missing broker, ...) is a step
// that asserts that error. The exit status is 0 only when every step did what it should.
// See tools/kafka-broker/README.md ("All clients").
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.function.Predicate;

import org.apache.kafka.clients.admin.AbortTransactionSpec;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ClassicGroupDescription;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.CreateDelegationTokenOptions;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.DescribeDelegationTokenOptions;
import org.apache.kafka.clients.admin.ExpireDelegationTokenOptions;
import org.apache.kafka.clients.admin.FeatureUpdate;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListConfigResourcesOptions;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.ListStreamsGroupOffsetsSpec;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.QuorumInfo;
import org.apache.kafka.clients.admin.RaftVoterEndpoint;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.RenewDelegationTokenOptions;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.SharePartitionOffsetInfo;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.UpdateFeaturesOptions;
import org.apache.kafka.clients.admin.UserScramCredentialDeletion;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionReplica;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.quota.ClientQuotaFilter;
import org.apache.kafka.common.quota.ClientQuotaFilterComponent;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.token.delegation.DelegationToken;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public final class Clients {
  interface Step {
    String run() throws Exception;  // a short detail for the "ok" line
  }

  static final String RUN = UUID.randomUUID().toString().substring(0, 8);
  static final Duration STEP_DEADLINE = Duration.ofSeconds(60);
  static final List<String> CODECS = List.of("none", "gzip", "snappy", "lz4", "zstd");
  static int failures = 0;
  static int steps = 0;

  static String env(String name) {
    String v = System.getenv(name);
    if (v == null || v.isEmpty()) {
      throw new IllegalStateException(name + " is not set (clients.sh exports broker.env)");
    }
    return v;
  }

  static final String PLAIN = env("KWIRE_KAFKA_BOOTSTRAP_PLAINTEXT");
  static final String SASL = env("KWIRE_KAFKA_BOOTSTRAP_SASL_PLAINTEXT");
  static final String CONTROLLER = env("KWIRE_KAFKA_CONTROLLER");
  static final String ADMIN = env("KWIRE_KAFKA_SCRAM_USER");
  static final String ADMIN_PW = env("KWIRE_KAFKA_SCRAM_PASSWORD");
  static final String USER = env("KWIRE_KAFKA_SCRAM_USER2");
  static final String USER_PW = env("KWIRE_KAFKA_SCRAM_PASSWORD2");

  static void step(String name, Step s) {
    long t0 = System.nanoTime();
    steps++;
    try {
      String detail = s.run();
      System.out.printf("ok    %-60s %6d ms  %s%n", name, (System.nanoTime() - t0) / 1_000_000,
          detail == null ? "" : detail);
    } catch (Throwable e) {
      failures++;
      System.out.printf("FAIL  %-60s %6d ms  %s%n", name, (System.nanoTime() - t0) / 1_000_000,
          cause(e));
    }
    System.out.flush();
  }

  static Throwable cause(Throwable e) {
    while ((e instanceof ExecutionException || e instanceof java.util.concurrent.CompletionException)
        && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }

  /** Runs call, which must fail with one of the given exception types (the broker's error). */
  @SafeVarargs
  static String expectError(Callable<?> call, Class<? extends Throwable>... expected)
      throws Exception {
    Object got;
    try {
      got = call.call();
    } catch (Exception e) {
      Throwable c = cause(e);
      for (Class<? extends Throwable> t : expected) {
        if (t.isInstance(c)) {
          return "refused as expected: " + c.getClass().getSimpleName();
        }
      }
      throw e;
    }
    throw new IllegalStateException("expected " + expected[0].getSimpleName() + ", got " + got);
  }

  static void check(boolean ok, String what) {
    if (!ok) {
      throw new IllegalStateException(what);
    }
  }

  static Properties plaintext(String clientId) {
    Properties p = new Properties();
    p.put("bootstrap.servers", PLAIN);
    p.put("client.id", "kwire-clients-" + clientId);
    p.put("request.timeout.ms", "20000");
    p.put("default.api.timeout.ms", "60000");
    return p;
  }

  static Properties scram(String clientId, String mechanism, String user, String password) {
    Properties p = plaintext(clientId);
    p.put("bootstrap.servers", SASL);
    p.put("security.protocol", "SASL_PLAINTEXT");
    p.put("sasl.mechanism", mechanism);
    p.put("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required"
        + " username=\"" + user + "\" password=\"" + password + "\";");
    return p;
  }

  static Properties tokenAuth(String clientId, DelegationToken token) {
    Properties p = scram(clientId, "SCRAM-SHA-256", token.tokenInfo().tokenId(),
        token.hmacAsBase64String());
    p.put("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required"
        + " username=\"" + token.tokenInfo().tokenId() + "\" password=\""
        + token.hmacAsBase64String() + "\" tokenauth=\"true\";");
    return p;
  }

  static Properties producerProps(Properties base) {
    Properties p = (Properties) base.clone();
    p.put("key.serializer", StringSerializer.class.getName());
    p.put("value.serializer", StringSerializer.class.getName());
    p.put("acks", "all");
    p.put("max.block.ms", "30000");
    p.put("delivery.timeout.ms", "60000");
    return p;
  }

  static Properties consumerProps(Properties base, String group, String protocol) {
    Properties p = (Properties) base.clone();
    p.put("key.deserializer", StringDeserializer.class.getName());
    p.put("value.deserializer", StringDeserializer.class.getName());
    if (group != null) {
      p.put("group.id", group);
      p.put("group.protocol", protocol);
    }
    p.put("auto.offset.reset", "earliest");
    p.put("enable.auto.commit", "false");
    return p;
  }

  /** Produces values (one batch) and returns the last record's metadata. */
  static RecordMetadata produce(Properties p, String topic, List<String> values) throws Exception {
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps(p))) {
      List<java.util.concurrent.Future<RecordMetadata>> fs = new ArrayList<>();
      for (String v : values) {
        fs.add(producer.send(new ProducerRecord<>(topic, 0, "k", v)));
      }
      producer.flush();
      RecordMetadata last = null;
      for (var f : fs) {
        last = f.get();
      }
      return last;
    }
  }

  /** Polls consumer until every wanted value was seen; returns the records read. */
  static List<ConsumerRecord<String, String>> readAll(KafkaConsumer<String, String> consumer,
      Collection<String> wanted) {
    Set<String> missing = new HashSet<>(wanted);
    List<ConsumerRecord<String, String>> got = new ArrayList<>();
    long deadline = System.nanoTime() + STEP_DEADLINE.toNanos();
    while (!missing.isEmpty() && System.nanoTime() < deadline) {
      for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(300))) {
        got.add(r);
        missing.remove(r.value());
      }
    }
    check(missing.isEmpty(), "not read within " + STEP_DEADLINE.toSeconds() + " s: " + missing);
    return got;
  }

  /** Retries get until ok passes or the step's deadline passes (metadata propagates). */
  static <T> T until(String what, Callable<T> get, Predicate<T> ok) throws Exception {
    long deadline = System.nanoTime() + STEP_DEADLINE.toNanos();
    T last = null;
    Exception lastError = null;
    while (System.nanoTime() < deadline) {
      try {
        last = get.call();
        lastError = null;
        if (ok.test(last)) {
          return last;
        }
      } catch (Exception e) {
        lastError = e;
      }
      Thread.sleep(250);
    }
    throw new IllegalStateException(what + " not seen within " + STEP_DEADLINE.toSeconds()
        + " s; last: " + (lastError != null ? cause(lastError) : last));
  }

  static short finalized(Admin admin, String feature) throws Exception {
    FinalizedVersionRange r = admin.describeFeatures().featureMetadata().get()
        .finalizedFeatures().get(feature);
    return r == null ? 0 : r.maxVersionLevel();
  }

  public static void main(String[] args) throws Exception {
    final String topic = "kwire-clients-" + RUN;           // the codecs, the consumers
    final String txTopic = "kwire-clients-tx-" + RUN;      // transactions
    final String miscTopic = "kwire-clients-misc-" + RUN;  // DeleteRecords, partitions, configs
    final String aclTopic = "kwire-clients-acl-" + RUN;
    final String classicGroup = "kwire-clients-classic-" + RUN;
    final String consumerGroup = "kwire-clients-848-" + RUN;
    final String shareGroup = "kwire-clients-share-" + RUN;
    final String txId = "kwire-clients-tx-" + RUN;
    final TopicPartition tp = new TopicPartition(topic, 0);
    final TopicPartition txTp = new TopicPartition(txTopic, 0);
    final TopicPartition miscTp = new TopicPartition(miscTopic, 0);
    final Map<String, String> written = new TreeMap<>();  // value -> codec
    System.out.println("clients (java): PLAINTEXT " + PLAIN + ", SASL_PLAINTEXT " + SASL
        + ", run " + RUN);

    try (Admin admin = Admin.create(plaintext("admin"));
         Admin saslAdmin = Admin.create(scram("sasl-admin", "SCRAM-SHA-512", ADMIN, ADMIN_PW))) {

      // ---- Cluster, features, quorum.
      final int[] nodeId = {-1};
      step("cluster: DescribeCluster", () -> {
        var c = admin.describeCluster();
        nodeId[0] = c.controller().get().id();
        return "cluster " + c.clusterId().get() + ", controller " + nodeId[0] + ", nodes "
            + c.nodes().get().size();
      });
      step("features: DescribeFeatures (ApiVersions)", () -> {
        Map<String, FinalizedVersionRange> fin =
            admin.describeFeatures().featureMetadata().get().finalizedFeatures();
        for (String name : List.of("group.version", "share.version", "transaction.version")) {
          check(fin.get(name) != null && fin.get(name).maxVersionLevel() >= 1,
              name + " not finalized >= 1: " + fin);
        }
        return fin.size() + " finalized: transaction.version="
            + fin.get("transaction.version").maxVersionLevel();
      });
      step("features: UpdateFeatures validateOnly (group.version 1)", () -> {
        admin.updateFeatures(Map.of("group.version",
            new FeatureUpdate((short) 1, FeatureUpdate.UpgradeType.UPGRADE)),
            new UpdateFeaturesOptions().validateOnly(true)).all().get();
        return "validated";
      });
      final QuorumInfo[] quorum = new QuorumInfo[1];
      step("quorum: DescribeQuorum", () -> {
        quorum[0] = admin.describeMetadataQuorum().quorumInfo().get();
        check(quorum[0].voters().size() == 1, "voters " + quorum[0].voters());
        return "leader " + quorum[0].leaderId() + ", epoch " + quorum[0].leaderEpoch()
            + ", high watermark " + quorum[0].highWatermark();
      });
      step("quorum: AddRaftVoter (the voter again: DUPLICATE_VOTER)", () -> {
        check(quorum[0] != null, "no quorum");
        QuorumInfo.ReplicaState v = quorum[0].voters().get(0);
        String[] hp = CONTROLLER.split(":");
        return expectError(() -> admin.addRaftVoter(v.replicaId(), v.replicaDirectoryId(),
            Set.of(new RaftVoterEndpoint("CONTROLLER", hp[0], Integer.parseInt(hp[1]))))
            .all().get(), org.apache.kafka.common.errors.DuplicateVoterException.class);
      });
      step("quorum: RemoveRaftVoter (no such voter: VOTER_NOT_FOUND)", () ->
          expectError(() -> admin.removeRaftVoter(4242, Uuid.randomUuid()).all().get(),
              org.apache.kafka.common.errors.VoterNotFoundException.class));
      step("cluster: UnregisterBroker (no such broker)", () ->
          expectError(() -> admin.unregisterBroker(4242).all().get(),
              org.apache.kafka.common.errors.BrokerIdNotRegisteredException.class));
      step("cluster: UnregisterController (no such controller)", () ->
          expectError(() -> admin.unregisterController(4242).all().get(),
              org.apache.kafka.common.errors.ApiException.class));

      // ---- Topics.
      step("topics: CreateTopics validateOnly", () -> {
        admin.createTopics(List.of(new NewTopic("kwire-clients-validate-" + RUN, 3, (short) 1)),
            new CreateTopicsOptions().validateOnly(true)).all().get();
        return "validated";
      });
      step("topics: CreateTopics (4 topics)", () -> {
        admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1),
            new NewTopic(txTopic, 1, (short) 1),
            new NewTopic(miscTopic, 1, (short) 1).configs(Map.of("retention.ms", "86400000")),
            new NewTopic(aclTopic, 1, (short) 1))).all().get();
        until("the topics in listTopics", () -> admin.listTopics().names().get(),
            n -> n.containsAll(List.of(topic, txTopic, miscTopic, aclTopic)));
        return "created";
      });
      step("topics: CreateTopics an existing topic (TOPIC_ALREADY_EXISTS)", () ->
          expectError(() -> admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1)))
              .all().get(), org.apache.kafka.common.errors.TopicExistsException.class));
      step("topics: DescribeTopicPartitions (describeTopics)", () -> {
        Map<String, TopicDescription> d = until("the topics described",
            () -> admin.describeTopics(List.of(topic, txTopic)).allTopicNames().get(),
            m -> m.size() == 2);
        return topic + ": " + d.get(topic).partitions().size() + " partition(s), leader "
            + d.get(topic).partitions().get(0).leader().id();
      });

      // ---- Producers: each codec (idempotent: InitProducerId), then both consumers.
      for (String codec : CODECS) {
        step("producer: compression.type=" + codec + " (idempotent)", () -> {
          Properties p = plaintext("producer-" + codec);
          p.put("compression.type", codec);
          p.put("enable.idempotence", "true");
          p.put("linger.ms", "50");
          List<String> values = new ArrayList<>();
          for (int i = 0; i < 3; i++) {
            String v = codec + "-" + i + "-" + RUN + "-" + "x".repeat(200);
            values.add(v);
            written.put(v, codec);
          }
          RecordMetadata m = produce(p, topic, values);
          return topic + "-" + m.partition() + "@" + m.offset();
        });
      }
      step("consumer: classic group reads every codec, commits", () -> {
        Properties p = consumerProps(plaintext("classic"), classicGroup, "classic");
        p.put("heartbeat.interval.ms", "300");
        p.put("isolation.level", "read_uncommitted");
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p)) {
          c.subscribe(List.of(topic));
          List<ConsumerRecord<String, String>> got = readAll(c, written.keySet());
          c.commitSync();
          // Stay a member long enough for a Heartbeat.
          long end = System.nanoTime() + Duration.ofMillis(800).toNanos();
          while (System.nanoTime() < end) {
            c.poll(Duration.ofMillis(100));
          }
          Map<TopicPartition, OffsetAndMetadata> committed = c.committed(Set.of(tp));
          check(committed.get(tp) != null, "no committed offset");
          return got.size() + " records, committed " + committed.get(tp).offset();
        }
      });
      step("consumer: KIP-848 group (group.protocol=consumer) reads every codec", () -> {
        Properties p = consumerProps(plaintext("consumer"), consumerGroup, "consumer");
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p)) {
          c.subscribe(List.of(topic));
          List<ConsumerRecord<String, String>> got = readAll(c, written.keySet());
          c.commitSync();
          return got.size() + " records";
        }
      });
      step("consumer: seek with a leader epoch (OffsetForLeaderEpoch)", () -> {
        Properties p = consumerProps(plaintext("epoch"), null, null);
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p)) {
          c.assign(List.of(tp));
          c.seek(tp, new OffsetAndMetadata(1, Optional.of(0), ""));
          List<ConsumerRecord<String, String>> got = new ArrayList<>();
          long deadline = System.nanoTime() + STEP_DEADLINE.toNanos();
          while (got.isEmpty() && System.nanoTime() < deadline) {
            c.poll(Duration.ofMillis(300)).forEach(got::add);
          }
          check(!got.isEmpty() && got.get(0).offset() == 1, "read " + got.size() + " records");
          return "position validated, read from offset " + got.get(0).offset() + ", leader epoch "
              + got.get(0).leaderEpoch().orElse(-1);
        }
      });

      // ---- Groups through the Admin.
      step("groups: ListGroups (every type)", () -> {
        Collection<GroupListing> l = until("both groups in listGroups",
            () -> admin.listGroups().all().get(),
            g -> g.stream().map(GroupListing::groupId).toList()
                .containsAll(List.of(classicGroup, consumerGroup)));
        return l.size() + " groups";
      });
      step("groups: DescribeGroups (classic) + ConsumerGroupDescribe", () -> {
        ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(consumerGroup))
            .describedGroups().get(consumerGroup).get();
        check(d.type() == GroupType.CONSUMER, "type " + d.type());
        ClassicGroupDescription c = admin.describeClassicGroups(List.of(classicGroup))
            .describedGroups().get(classicGroup).get();
        ConsumerGroupDescription dc = admin.describeConsumerGroups(List.of(classicGroup))
            .describedGroups().get(classicGroup).get();
        check(dc.type() == GroupType.CLASSIC, "type " + dc.type());
        return consumerGroup + " " + d.type() + "/" + d.groupState() + "; " + classicGroup + " "
            + dc.type() + "/" + c.state();
      });
      step("groups: OffsetFetch, OffsetCommit (alter), OffsetDelete", () -> {
        Map<TopicPartition, OffsetAndMetadata> o = admin.listConsumerGroupOffsets(classicGroup)
            .partitionsToOffsetAndMetadata().get();
        check(o.get(tp) != null && o.get(tp).offset() == 3L * CODECS.size(), "offsets " + o);
        admin.alterConsumerGroupOffsets(classicGroup, Map.of(tp, new OffsetAndMetadata(2)))
            .all().get();
        long now = admin.listConsumerGroupOffsets(classicGroup).partitionsToOffsetAndMetadata()
            .get().get(tp).offset();
        check(now == 2, "offset after alter " + now);
        admin.deleteConsumerGroupOffsets(classicGroup, Set.of(tp)).all().get();
        Map<TopicPartition, OffsetAndMetadata> after = admin.listConsumerGroupOffsets(classicGroup)
            .partitionsToOffsetAndMetadata().get();
        check(after.get(tp) == null, "offset still there " + after);
        return "committed " + o.get(tp).offset() + ", altered to 2, deleted";
      });
      step("groups: LeaveGroup (removeMembersFromConsumerGroup, no members)", () ->
          expectError(() -> admin.removeMembersFromConsumerGroup(classicGroup,
              new org.apache.kafka.clients.admin.RemoveMembersFromConsumerGroupOptions()).all()
              .get(), IllegalArgumentException.class,
              org.apache.kafka.common.KafkaException.class));
      step("groups: DeleteGroups", () -> {
        admin.deleteConsumerGroups(List.of(classicGroup, consumerGroup)).all().get();
        return "deleted 2";
      });
      step("streams group: StreamsGroupDescribe (no such group)", () ->
          expectError(() -> admin.describeStreamsGroups(List.of("kwire-clients-streams-" + RUN))
              .all().get(), org.apache.kafka.common.errors.GroupIdNotFoundException.class));
      step("streams group: OffsetFetch (listStreamsGroupOffsets, none)", () -> {
        var o = admin.listStreamsGroupOffsets(Map.of("kwire-clients-streams-" + RUN,
            new ListStreamsGroupOffsetsSpec())).all().get();
        return o.toString();
      });

      // ---- Offsets and records.
      step("offsets: ListOffsets (earliest, latest, max timestamp, time)", () -> {
        long earliest = admin.listOffsets(Map.of(tp, OffsetSpec.earliest())).all().get()
            .get(tp).offset();
        long latest = admin.listOffsets(Map.of(tp, OffsetSpec.latest())).all().get()
            .get(tp).offset();
        long max = admin.listOffsets(Map.of(tp, OffsetSpec.maxTimestamp())).all().get()
            .get(tp).offset();
        long byTime = admin.listOffsets(Map.of(tp, OffsetSpec.forTimestamp(0))).all().get()
            .get(tp).offset();
        check(earliest == 0 && latest == 3L * CODECS.size() && byTime == 0,
            "earliest " + earliest + " latest " + latest + " forTimestamp(0) " + byTime);
        return "earliest " + earliest + ", latest " + latest + ", max timestamp at " + max;
      });
      step("records: DeleteRecords", () -> {
        produce(plaintext("misc"), miscTopic, List.of("m0", "m1", "m2", "m3", "m4"));
        long low = admin.deleteRecords(Map.of(miscTp, RecordsToDelete.beforeOffset(2)))
            .lowWatermarks().get(miscTp).get().lowWatermark();
        long earliest = admin.listOffsets(Map.of(miscTp, OffsetSpec.earliest())).all().get()
            .get(miscTp).offset();
        check(low == 2 && earliest == 2, "low watermark " + low + ", earliest " + earliest);
        return "low watermark 2";
      });
      step("topics: CreatePartitions (1 -> 2)", () -> {
        admin.createPartitions(Map.of(miscTopic, NewPartitions.increaseTo(2))).all().get();
        TopicDescription d = until("2 partitions", () -> admin.describeTopics(List.of(miscTopic))
            .allTopicNames().get().get(miscTopic), t -> t.partitions().size() == 2);
        return d.partitions().size() + " partitions";
      });

      // ---- Configs.
      final ConfigResource topicRes = new ConfigResource(ConfigResource.Type.TOPIC, miscTopic);
      step("configs: DescribeConfigs (topic, broker)", () -> {
        var m = admin.describeConfigs(List.of(topicRes,
            new ConfigResource(ConfigResource.Type.BROKER, String.valueOf(nodeId[0])))).all().get();
        check("86400000".equals(m.get(topicRes).get("retention.ms").value()),
            "retention.ms " + m.get(topicRes).get("retention.ms"));
        return m.size() + " resources, topic " + m.get(topicRes).entries().size() + " entries";
      });
      step("configs: IncrementalAlterConfigs (topic, broker dynamic)", () -> {
        admin.incrementalAlterConfigs(Map.of(topicRes, List.of(
            new AlterConfigOp(new ConfigEntry("retention.ms", "3600000"), AlterConfigOp.OpType.SET),
            new AlterConfigOp(new ConfigEntry("cleanup.policy", "compact"),
                AlterConfigOp.OpType.APPEND)))).all().get();
        String v = until("retention.ms=3600000", () -> admin.describeConfigs(List.of(topicRes))
            .all().get().get(topicRes).get("retention.ms").value(), "3600000"::equals);
        ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, "");
        admin.incrementalAlterConfigs(Map.of(broker, List.of(new AlterConfigOp(
            new ConfigEntry("log.cleaner.threads", "1"), AlterConfigOp.OpType.SET)))).all().get();
        admin.incrementalAlterConfigs(Map.of(broker, List.of(new AlterConfigOp(
            new ConfigEntry("log.cleaner.threads", ""), AlterConfigOp.OpType.DELETE)))).all().get();
        return "retention.ms=" + v + ", cluster default set and deleted";
      });
      final String metricsName = "kwire-clients-metrics-" + RUN;
      final ConfigResource metricsRes =
          new ConfigResource(ConfigResource.Type.CLIENT_METRICS, metricsName);
      step("client metrics: IncrementalAlterConfigs CLIENT_METRICS", () -> {
        admin.incrementalAlterConfigs(Map.of(metricsRes, List.of(
            new AlterConfigOp(new ConfigEntry("metrics", "org.apache.kafka.producer."),
                AlterConfigOp.OpType.SET),
            new AlterConfigOp(new ConfigEntry("interval.ms", "60000"), AlterConfigOp.OpType.SET))))
            .all().get();
        var c = until("the subscription", () -> admin.describeConfigs(List.of(metricsRes)).all()
            .get().get(metricsRes), x -> x.get("interval.ms") != null
            && "60000".equals(x.get("interval.ms").value()));
        return "metrics=" + c.get("metrics").value();
      });
      step("client metrics: ListConfigResources (v1 and v0)", () -> {
        Collection<ConfigResource> l = until("the subscription listed",
            () -> admin.listConfigResources(Set.of(ConfigResource.Type.CLIENT_METRICS),
                new ListConfigResourcesOptions()).all().get(), x -> x.contains(metricsRes));
        List<String> old = listClientMetricsResources(admin);
        check(old.contains(metricsName), "v0: " + old);
        Collection<ConfigResource> all = admin.listConfigResources().all().get();
        return l.size() + " CLIENT_METRICS, " + all.size() + " of every type";
      });
      step("client metrics: delete the subscription", () -> {
        admin.incrementalAlterConfigs(Map.of(metricsRes, List.of(
            new AlterConfigOp(new ConfigEntry("metrics", ""), AlterConfigOp.OpType.DELETE),
            new AlterConfigOp(new ConfigEntry("interval.ms", ""), AlterConfigOp.OpType.DELETE))))
            .all().get();
        return "deleted";
      });

      // ---- ACLs.
      AclBinding deny = new AclBinding(
          new ResourcePattern(ResourceType.TOPIC, aclTopic, PatternType.LITERAL),
          new AccessControlEntry("User:" + USER, "*", AclOperation.WRITE, AclPermissionType.DENY));
      AclBindingFilter aclFilter = new AclBindingFilter(
          new ResourcePatternFilter(ResourceType.TOPIC, aclTopic, PatternType.LITERAL),
          AccessControlEntryFilter.ANY);
      step("ACL: CreateAcls + DescribeAcls", () -> {
        admin.createAcls(List.of(deny)).all().get();
        Collection<AclBinding> acls = until("the ACL in describeAcls",
            () -> admin.describeAcls(aclFilter).values().get(), l -> l.contains(deny));
        return acls.size() + " ACL(s)";
      });
      step("ACL: enforced (User:" + USER + " may not write)", () -> {
        try {
          produce(scram("denied", "SCRAM-SHA-256", USER, USER_PW), aclTopic, List.of("no"));
        } catch (TopicAuthorizationException e) {
          return "TopicAuthorizationException";
        } catch (ExecutionException e) {
          if (cause(e) instanceof TopicAuthorizationException) {
            return "TopicAuthorizationException";
          }
          throw e;
        }
        throw new IllegalStateException("the write was allowed");
      });
      step("ACL: DeleteAcls", () -> {
        var deleted = admin.deleteAcls(List.of(aclFilter)).all().get();
        check(deleted.contains(deny), "deleted " + deleted);
        until("no ACL", () -> admin.describeAcls(aclFilter).values().get(), Collection::isEmpty);
        return deleted.size() + " deleted";
      });

      // ---- Quotas.
      final ClientQuotaEntity quotaEntity = new ClientQuotaEntity(
          Map.of(ClientQuotaEntity.CLIENT_ID, "kwire-clients-quota-" + RUN));
      final ClientQuotaFilter quotaFilter = ClientQuotaFilter.containsOnly(List.of(
          ClientQuotaFilterComponent.ofEntity(ClientQuotaEntity.CLIENT_ID,
              "kwire-clients-quota-" + RUN)));
      step("quotas: AlterClientQuotas + DescribeClientQuotas", () -> {
        admin.alterClientQuotas(List.of(new ClientQuotaAlteration(quotaEntity, List.of(
            new ClientQuotaAlteration.Op("producer_byte_rate", 1048576.0))))).all().get();
        var q = until("the quota", () -> admin.describeClientQuotas(quotaFilter).entities().get(),
            m -> m.containsKey(quotaEntity));
        admin.alterClientQuotas(List.of(new ClientQuotaAlteration(quotaEntity, List.of(
            new ClientQuotaAlteration.Op("producer_byte_rate", null))))).all().get();
        until("the quota removed", () -> admin.describeClientQuotas(quotaFilter).entities().get(),
            Map::isEmpty);
        return "set " + q.get(quotaEntity) + ", removed";
      });

      // ---- SCRAM credentials.
      final String scramUser = "kwire-clients-scram-" + RUN;
      final String scramPw = UUID.randomUUID().toString();
      step("SCRAM: AlterUserScramCredentials upsert + DescribeUserScramCredentials", () -> {
        saslAdmin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(scramUser,
            new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 8192), scramPw))).all().get();
        var d = until("the user", () -> saslAdmin.describeUserScramCredentials(List.of(scramUser))
            .all().get(), m -> m.containsKey(scramUser));
        return d.get(scramUser).credentialInfos().toString();
      });
      step("SCRAM: the new user authenticates (SaslHandshake, SaslAuthenticate)", () -> {
        try (Admin a = Admin.create(scram("scram-user", "SCRAM-SHA-256", scramUser, scramPw))) {
          Set<String> names = until("listTopics as the new user", () -> a.listTopics().names()
              .get(), n -> n.contains(topic));
          return names.size() + " topics";
        }
      });
      step("SCRAM: a wrong password is refused", () -> {
        Properties p = scram("bad", "SCRAM-SHA-256", USER, "not-the-password");
        p.put("request.timeout.ms", "10000");
        p.put("default.api.timeout.ms", "15000");
        try (Admin bad = Admin.create(p)) {
          return expectError(() -> bad.listTopics().names().get(),
              org.apache.kafka.common.errors.SaslAuthenticationException.class);
        }
      });
      step("SCRAM: delete the user", () -> {
        saslAdmin.alterUserScramCredentials(List.of(
            new UserScramCredentialDeletion(scramUser, ScramMechanism.SCRAM_SHA_256))).all().get();
        return "deleted";
      });

      // ---- Delegation tokens.
      final DelegationToken[] token = new DelegationToken[1];
      step("delegation token: CreateDelegationToken (SASL)", () -> {
        token[0] = saslAdmin.createDelegationToken(new CreateDelegationTokenOptions())
            .delegationToken().get();
        return "token " + token[0].tokenInfo().tokenId();
      });
      step("delegation token: DescribeDelegationToken", () -> {
        check(token[0] != null, "no token");
        String id = token[0].tokenInfo().tokenId();
        List<DelegationToken> l = until("the token",
            () -> saslAdmin.describeDelegationToken(new DescribeDelegationTokenOptions())
                .delegationTokens().get(),
            x -> x.stream().anyMatch(t -> t.tokenInfo().tokenId().equals(id)));
        return l.size() + " token(s)";
      });
      step("delegation token: RenewDelegationToken", () -> {
        check(token[0] != null, "no token");
        long expiry = saslAdmin.renewDelegationToken(token[0].hmac(),
            new RenewDelegationTokenOptions().renewTimePeriodMs(3_600_000)).expiryTimestamp().get();
        return "expiry " + java.time.Instant.ofEpochMilli(expiry);
      });
      step("delegation token: authenticate with it (tokenauth)", () -> {
        check(token[0] != null, "no token");
        try (Admin a = Admin.create(tokenAuth("token", token[0]))) {
          Set<String> names = until("listTopics over the token", () -> a.listTopics().names().get(),
              n -> n.contains(topic));
          return names.size() + " topics";
        }
      });
      step("delegation token: ExpireDelegationToken", () -> {
        check(token[0] != null, "no token");
        saslAdmin.expireDelegationToken(token[0].hmac(),
            new ExpireDelegationTokenOptions().expiryTimePeriodMs(-1)).expiryTimestamp().get();
        String id = token[0].tokenInfo().tokenId();
        until("the token gone", () -> saslAdmin.describeDelegationToken().delegationTokens().get(),
            x -> x.stream().noneMatch(t -> t.tokenInfo().tokenId().equals(id)));
        return "expired";
      });
      step("delegation token: refused on PLAINTEXT", () ->
          expectError(() -> admin.createDelegationToken().delegationToken().get(),
              org.apache.kafka.common.errors.UnsupportedByAuthenticationException.class));

      // ---- Log dirs, reassignments, leader election.
      final String[] logDir = new String[1];
      step("log dirs: DescribeLogDirs", () -> {
        Map<String, LogDirDescription> d = admin.describeLogDirs(List.of(nodeId[0]))
            .descriptions().get(nodeId[0]).get();
        check(d.size() == 1, "log dirs " + d.keySet());
        logDir[0] = d.keySet().iterator().next();
        LogDirDescription dir = d.get(logDir[0]);
        check(dir.replicaInfos().containsKey(tp), "no " + tp + " in " + logDir[0]);
        var r = admin.describeReplicaLogDirs(List.of(new TopicPartitionReplica(topic, 0,
            nodeId[0]))).all().get();
        return logDir[0] + ": " + dir.replicaInfos().size() + " replicas; " + tp + " in "
            + r.values().iterator().next().getCurrentReplicaLogDir();
      });
      step("log dirs: AlterReplicaLogDirs (to its own dir)", () -> {
        check(logDir[0] != null, "no log dir");
        admin.alterReplicaLogDirs(Map.of(new TopicPartitionReplica(topic, 0, nodeId[0]),
            logDir[0])).all().get();
        return "kept in " + logDir[0];
      });
      step("reassignments: AlterPartitionReassignments (missing broker)", () ->
          expectError(() -> admin.alterPartitionReassignments(Map.of(tp,
              Optional.of(new NewPartitionReassignment(List.of(4242))))).all().get(),
              org.apache.kafka.common.errors.InvalidReplicaAssignmentException.class));
      step("reassignments: cancel none (NO_REASSIGNMENT_IN_PROGRESS)", () ->
          expectError(() -> admin.alterPartitionReassignments(Map.of(tp, Optional.empty()))
              .all().get(),
              org.apache.kafka.common.errors.NoReassignmentInProgressException.class));
      step("reassignments: to the replicas it has", () -> {
        admin.alterPartitionReassignments(Map.of(tp, Optional.of(
            new NewPartitionReassignment(List.of(nodeId[0]))))).all().get();
        return "accepted";
      });
      step("reassignments: ListPartitionReassignments", () -> {
        var l = until("no reassignment", () -> admin.listPartitionReassignments().reassignments()
            .get(), Map::isEmpty);
        return l.size() + " ongoing";
      });
      step("leaders: ElectLeaders PREFERRED (ELECTION_NOT_NEEDED)", () ->
          expectError(() -> admin.electLeaders(ElectionType.PREFERRED, Set.of(tp)).all().get(),
              org.apache.kafka.common.errors.ElectionNotNeededException.class));
      step("leaders: ElectLeaders UNCLEAN (ELECTION_NOT_NEEDED)", () ->
          expectError(() -> admin.electLeaders(ElectionType.UNCLEAN, Set.of(tp)).all().get(),
              org.apache.kafka.common.errors.ElectionNotNeededException.class));

      // ---- Transactions, transaction.version 2 (KIP-890: no AddPartitionsToTxn or
      // AddOffsetsToTxn; Produce and TxnOffsetCommit add them).
      step("transactions (TV2): consume-transform-produce, sendOffsetsToTransaction", () ->
          transformTransaction(txId + "-v2", topic, txTopic, "tv2-" + RUN, "kwire-clients-txg2-" + RUN));
      step("transactions (TV2): abortTransaction", () -> {
        Properties p = producerProps(plaintext("tx-abort"));
        p.put("transactional.id", txId + "-abort");
        p.put("max.block.ms", "60000");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
          producer.initTransactions();
          producer.beginTransaction();
          producer.send(new ProducerRecord<>(txTopic, 0, "k", "aborted-" + RUN)).get();
          producer.abortTransaction();
        }
        return "aborted";
      });
      step("transactions: read_committed skips the aborted record", () -> {
        Properties p = consumerProps(plaintext("rc"), null, null);
        p.put("isolation.level", "read_committed");
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p)) {
          c.assign(List.of(txTp));
          c.seekToBeginning(List.of(txTp));
          List<ConsumerRecord<String, String>> got = readAll(c, List.of("tv2-" + RUN));
          check(got.stream().noneMatch(r -> r.value().startsWith("aborted-")), "read aborted");
          return got.size() + " committed record(s)";
        }
      });
      step("transactions: ListTransactions + DescribeTransactions", () -> {
        Collection<TransactionListing> l = until("the transactional ids",
            () -> admin.listTransactions(new ListTransactionsOptions()).all().get(),
            x -> x.stream().anyMatch(t -> t.transactionalId().equals(txId + "-v2")));
        TransactionDescription d = admin.describeTransactions(List.of(txId + "-v2"))
            .description(txId + "-v2").get();
        return l.size() + " listed; " + txId + "-v2: " + d.state() + ", producer "
            + d.producerId() + "/" + d.producerEpoch();
      });
      step("transactions: DescribeProducers", () -> {
        List<ProducerState> s = admin.describeProducers(List.of(txTp)).partitionResult(txTp).get()
            .activeProducers();
        check(!s.isEmpty(), "no producers");
        return s.size() + " producer(s) on " + txTp;
      });
      step("transactions: a hanging transaction aborted by the Admin (WriteTxnMarkers)", () -> {
        Properties p = producerProps(plaintext("tx-hanging"));
        p.put("transactional.id", txId + "-hanging");
        p.put("max.block.ms", "60000");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
          producer.initTransactions();
          producer.beginTransaction();
          producer.send(new ProducerRecord<>(txTopic, 0, "k", "hanging-" + RUN)).get();
          ProducerState open = until("an open transaction", () -> admin.describeProducers(
              List.of(txTp)).partitionResult(txTp).get().activeProducers(),
              l -> l.stream().anyMatch(s -> s.currentTransactionStartOffset().isPresent()))
              .stream().filter(s -> s.currentTransactionStartOffset().isPresent()).findFirst()
              .get();
          admin.abortTransaction(new AbortTransactionSpec(txTp, open.producerId(),
              (short) open.producerEpoch(), open.coordinatorEpoch().orElse(0))).all().get();
          until("no open transaction", () -> admin.describeProducers(List.of(txTp))
              .partitionResult(txTp).get().activeProducers(),
              l -> l.stream().noneMatch(s -> s.currentTransactionStartOffset().isPresent()));
          return "aborted producer " + open.producerId() + "/" + open.producerEpoch();
        }
      });
      step("transactions: fenceProducers (InitProducerId from the Admin)", () -> {
        var r = admin.fenceProducers(List.of(txId + "-v2"));
        r.all().get();
        return "fenced, epoch " + r.epochId(txId + "-v2").get();
      });

      // ---- transaction.version 1 (UpdateFeatures down and up): AddPartitionsToTxn,
      // AddOffsetsToTxn.
      step("features: UpdateFeatures transaction.version 2 -> 1", () -> {
        admin.updateFeatures(Map.of("transaction.version", new FeatureUpdate((short) 1,
            FeatureUpdate.UpgradeType.SAFE_DOWNGRADE)), new UpdateFeaturesOptions()).all().get();
        short v = until("transaction.version 1", () -> finalized(admin, "transaction.version"),
            x -> x == 1);
        return "transaction.version=" + v;
      });
      step("transactions (TV1): AddPartitionsToTxn, AddOffsetsToTxn, TxnOffsetCommit", () ->
          transformTransaction(txId + "-v1", topic, txTopic, "tv1-" + RUN, "kwire-clients-txg1-" + RUN));
      step("features: UpdateFeatures transaction.version 1 -> 2", () -> {
        admin.updateFeatures(Map.of("transaction.version", new FeatureUpdate((short) 2,
            FeatureUpdate.UpgradeType.UPGRADE)), new UpdateFeaturesOptions()).all().get();
        short v = until("transaction.version 2", () -> finalized(admin, "transaction.version"),
            x -> x == 2);
        return "transaction.version=" + v;
      });

      // ---- Share group (KIP-932).
      final TopicPartition shareTp = tp;
      step("share group: consume, acknowledge explicitly (ShareFetch, ShareAcknowledge)", () -> {
        ConfigResource group = new ConfigResource(ConfigResource.Type.GROUP, shareGroup);
        admin.incrementalAlterConfigs(Map.of(group, List.of(new AlterConfigOp(
            new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET))))
            .all().get();
        Map<String, Object> p = new HashMap<>();
        plaintext("share").forEach((k, v) -> p.put((String) k, v));
        p.put("group.id", shareGroup);
        p.put("share.acknowledgement.mode", "explicit");
        p.put("key.deserializer", StringDeserializer.class.getName());
        p.put("value.deserializer", StringDeserializer.class.getName());
        Set<String> missing = new HashSet<>(written.keySet());
        int released = 0;
        long deadline = System.nanoTime() + STEP_DEADLINE.toNanos();
        try (KafkaShareConsumer<String, String> c = new KafkaShareConsumer<>(p)) {
          c.subscribe(List.of(topic));
          while (!missing.isEmpty() && System.nanoTime() < deadline) {
            for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(500))) {
              // Release the first delivery of one record: it comes again (delivery count 2).
              if (released == 0 && r.offset() == 0) {
                c.acknowledge(r, AcknowledgeType.RELEASE);
                released++;
                continue;
              }
              c.acknowledge(r, AcknowledgeType.ACCEPT);
              missing.remove(r.value());
            }
            c.commitSync();
          }
        }
        check(missing.isEmpty(), "not read: " + missing.size());
        return "read and accepted " + written.size() + " records, released one once";
      });
      step("share group: ListGroups + ShareGroupDescribe", () -> {
        until("the share group in listGroups",
            () -> admin.listGroups(ListGroupsOptions.forShareGroups()).all().get(),
            l -> l.stream().anyMatch(g -> g.groupId().equals(shareGroup)));
        var d = admin.describeShareGroups(List.of(shareGroup)).describedGroups().get(shareGroup)
            .get();
        return "state " + d.groupState() + ", epoch " + d.groupEpoch();
      });
      step("share group: DescribeShareGroupOffsets", () -> {
        // Every record acknowledged: no lag (the start offset the persister reports may lag).
        Map<TopicPartition, SharePartitionOffsetInfo> o = until("the share group's offsets",
            () -> admin.listShareGroupOffsets(Map.of(shareGroup, new ListShareGroupOffsetsSpec()))
                .partitionsToOffsetInfo(shareGroup).get(),
            m -> m.get(shareTp) != null && m.get(shareTp).lag().orElse(-1L) == 0);
        return "start offset " + o.get(shareTp).startOffset() + ", lag 0";
      });
      step("share group: AlterShareGroupOffsets (to 5, once empty)", () -> {
        until("the share group empty", () -> admin.describeShareGroups(List.of(shareGroup))
            .describedGroups().get(shareGroup).get().members(), Collection::isEmpty);
        until("the offsets altered", () -> {
          admin.alterShareGroupOffsets(shareGroup, Map.of(shareTp, 5L)).all().get();
          return admin.listShareGroupOffsets(Map.of(shareGroup, new ListShareGroupOffsetsSpec()))
              .partitionsToOffsetInfo(shareGroup).get().get(shareTp).startOffset();
        }, x -> x == 5);
        return "start offset 5";
      });
      step("share group: DeleteShareGroupOffsets", () -> {
        admin.deleteShareGroupOffsets(shareGroup, Set.of(topic)).all().get();
        var o = admin.listShareGroupOffsets(Map.of(shareGroup, new ListShareGroupOffsetsSpec()))
            .partitionsToOffsetInfo(shareGroup).get();
        check(o.get(shareTp) == null, "still " + o);
        return "deleted";
      });
      step("share group: DeleteGroups (deleteShareGroups)", () -> {
        admin.deleteShareGroups(List.of(shareGroup)).all().get();
        return "deleted";
      });

      // ---- Clean up.
      step("topics: DeleteTopics", () -> {
        admin.deleteTopics(List.of(miscTopic, aclTopic)).all().get();
        until("the topics gone", () -> admin.listTopics().names().get(),
            n -> !n.contains(miscTopic) && !n.contains(aclTopic));
        return "deleted 2";
      });
    }

    System.out.println(failures == 0 ? "clients (java): all " + steps + " steps did what they should"
        : "clients (java): " + failures + " of " + steps + " step(s) FAILED");
    System.exit(failures == 0 ? 0 : 1);
  }

  /** Reads the codec records in a classic group and writes one record per batch in a
   *  transaction with the group's offsets (sendOffsetsToTransaction); commits. */
  static String transformTransaction(String transactionalId, String from, String to, String value,
      String group) throws Exception {
    Properties pp = producerProps(plaintext("tx-" + transactionalId));
    pp.put("transactional.id", transactionalId);
    pp.put("max.block.ms", "60000");
    Properties cp = consumerProps(plaintext("tx-in-" + transactionalId), group, "classic");
    cp.put("isolation.level", "read_committed");
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp);
         KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp)) {
      producer.initTransactions();
      consumer.subscribe(List.of(from));
      List<ConsumerRecord<String, String>> in = new ArrayList<>();
      long deadline = System.nanoTime() + STEP_DEADLINE.toNanos();
      while (in.size() < 3 && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(300)).forEach(in::add);
      }
      check(in.size() >= 3, "read " + in.size() + " records");
      producer.beginTransaction();
      producer.send(new ProducerRecord<>(to, 0, "k", value)).get();
      ConsumerRecord<String, String> last = in.get(in.size() - 1);
      producer.sendOffsetsToTransaction(Map.of(new TopicPartition(last.topic(), last.partition()),
          new OffsetAndMetadata(last.offset() + 1)), consumer.groupMetadata());
      producer.commitTransaction();
      long committed = consumer.committed(Set.of(new TopicPartition(last.topic(),
          last.partition()))).values().iterator().next().offset();
      check(committed == last.offset() + 1, "committed " + committed);
      return "committed '" + value + "' and group offset " + committed;
    }
  }

  /** ListConfigResources v0 (the Admin's deprecated listClientMetricsResources). */
  @SuppressWarnings({"removal", "deprecation"})
  static List<String> listClientMetricsResources(Admin admin) throws Exception {
    return admin.listClientMetricsResources().all().get().stream()
        .map(org.apache.kafka.clients.admin.ClientMetricsResourceListing::name).toList();
  }
}
