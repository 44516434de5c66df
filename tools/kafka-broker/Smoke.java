// The smoke check of tools/kafka-broker/smoke.sh: Apache Kafka's own Java client
// (org.apache.kafka:kafka-clients, the version broker.sh runs) against the broker whose
// broker.env smoke.sh exports. Every step prints "ok" or "FAIL" with its time; the exit
// status is 0 only when every step worked. See tools/kafka-broker/README.md.
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.function.Predicate;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.CreateDelegationTokenOptions;
import org.apache.kafka.clients.admin.DescribeDelegationTokenOptions;
import org.apache.kafka.clients.admin.FeatureMetadata;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ShareGroupDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.token.delegation.DelegationToken;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public final class Smoke {
  interface Step {
    String run() throws Exception;  // a short detail for the "ok" line
  }

  static final String RUN = UUID.randomUUID().toString().substring(0, 8);
  static final Duration STEP_DEADLINE = Duration.ofSeconds(60);
  static int failures = 0;

  static String env(String name) {
    String v = System.getenv(name);
    if (v == null || v.isEmpty()) {
      throw new IllegalStateException(name + " is not set (smoke.sh exports broker.env)");
    }
    return v;
  }

  static final String PLAIN = env("KWIRE_KAFKA_BOOTSTRAP_PLAINTEXT");
  static final String SASL = env("KWIRE_KAFKA_BOOTSTRAP_SASL_PLAINTEXT");
  static final String ADMIN = env("KWIRE_KAFKA_SCRAM_USER");
  static final String ADMIN_PW = env("KWIRE_KAFKA_SCRAM_PASSWORD");
  static final String USER = env("KWIRE_KAFKA_SCRAM_USER2");
  static final String USER_PW = env("KWIRE_KAFKA_SCRAM_PASSWORD2");

  static void step(String name, Step s) {
    long t0 = System.nanoTime();
    try {
      String detail = s.run();
      System.out.printf("ok    %-52s %6d ms  %s%n", name, (System.nanoTime() - t0) / 1_000_000,
          detail == null ? "" : detail);
    } catch (Throwable e) {
      failures++;
      Throwable c = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
      System.out.printf("FAIL  %-52s %6d ms  %s%n", name, (System.nanoTime() - t0) / 1_000_000, c);
    }
    System.out.flush();
  }

  static Properties plaintext(String clientId) {
    Properties p = new Properties();
    p.put("bootstrap.servers", PLAIN);
    p.put("client.id", "kwire-smoke-" + clientId);
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

  static String produce(Properties p, String topic, String value) throws Exception {
    p = (Properties) p.clone();
    p.put("key.serializer", StringSerializer.class.getName());
    p.put("value.serializer", StringSerializer.class.getName());
    p.put("acks", "all");
    p.put("max.block.ms", "30000");
    p.put("delivery.timeout.ms", "60000");
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
      RecordMetadata m = producer.send(new ProducerRecord<>(topic, "k", value)).get();
      return topic + "-" + m.partition() + "@" + m.offset();
    }
  }

  /** Subscribes with a new group of the given protocol and polls until it sees value. */
  static String consume(Properties p, String topic, String group, String protocol, String value,
                        String isolation) throws Exception {
    p = (Properties) p.clone();
    p.put("key.deserializer", StringDeserializer.class.getName());
    p.put("value.deserializer", StringDeserializer.class.getName());
    p.put("group.id", group);
    p.put("group.protocol", protocol);
    p.put("auto.offset.reset", "earliest");
    p.put("enable.auto.commit", "false");
    if (isolation != null) {
      p.put("isolation.level", isolation);
    }
    long deadline = System.nanoTime() + STEP_DEADLINE.toNanos();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
      consumer.subscribe(List.of(topic));
      while (System.nanoTime() < deadline) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
          if (value.equals(r.value())) {
            consumer.commitSync();
            return "group " + group + " (" + protocol + ") read " + topic + "-" + r.partition()
                + "@" + r.offset();
          }
        }
      }
    }
    throw new IllegalStateException("no record '" + value + "' on " + topic + " within "
        + STEP_DEADLINE.toSeconds() + " s");
  }

  /** Retries check until it passes or the step's deadline passes (metadata propagates). */
  static <T> T until(String what, java.util.concurrent.Callable<T> get, Predicate<T> ok)
      throws Exception {
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
        + " s; last: " + (lastError != null ? lastError : last));
  }

  public static void main(String[] args) throws Exception {
    final String topic = "kwire-smoke-" + RUN;
    final String aclTopic = "kwire-smoke-acl-" + RUN;
    final String txTopic = "kwire-smoke-tx-" + RUN;
    final String shareGroup = "kwire-smoke-share-" + RUN;
    final String consumerGroup = "kwire-smoke-848-" + RUN;
    System.out.println("smoke: PLAINTEXT " + PLAIN + ", SASL_PLAINTEXT " + SASL + ", run " + RUN);

    try (Admin plainAdmin = Admin.create(plaintext("admin"));
         Admin saslAdmin = Admin.create(scram("sasl-admin", "SCRAM-SHA-512", ADMIN, ADMIN_PW))) {

      step("cluster: describeCluster (PLAINTEXT)", () -> {
        var c = plainAdmin.describeCluster();
        return "cluster " + c.clusterId().get() + ", controller " + c.controller().get().id()
            + ", nodes " + c.nodes().get().size();
      });

      step("features: group/share/streams/transaction.version", () -> {
        FeatureMetadata f = plainAdmin.describeFeatures().featureMetadata().get();
        Map<String, FinalizedVersionRange> fin = f.finalizedFeatures();
        StringBuilder sb = new StringBuilder();
        for (String name : List.of("metadata.version", "kraft.version", "group.version",
            "share.version", "streams.version", "transaction.version")) {
          FinalizedVersionRange r = fin.get(name);
          sb.append(name).append('=').append(r == null ? "-" : r.maxVersionLevel()).append(' ');
        }
        for (String name : List.of("group.version", "share.version", "transaction.version")) {
          if (fin.get(name) == null || fin.get(name).maxVersionLevel() < 1) {
            throw new IllegalStateException(name + " not finalized >= 1: " + sb);
          }
        }
        return sb.toString().trim();
      });

      step("topics: create 3 kwire-smoke-*-" + RUN + " (PLAINTEXT)", () -> {
        plainAdmin.createTopics(List.of(new NewTopic(topic, 1, (short) 1),
            new NewTopic(aclTopic, 1, (short) 1), new NewTopic(txTopic, 1, (short) 1)))
            .all().get();
        Set<String> names = until("the topics in listTopics",
            () -> plainAdmin.listTopics().names().get(),
            n -> n.containsAll(List.of(topic, aclTopic, txTopic)));
        return names.size() + " topics";
      });

      step("PLAINTEXT: produce", () -> produce(plaintext("producer"), topic, "plain-" + RUN));
      step("PLAINTEXT: consume (group.protocol=consumer, KIP-848)", () ->
          consume(plaintext("consumer"), topic, consumerGroup, "consumer", "plain-" + RUN, null));
      step("PLAINTEXT: the group is a KIP-848 consumer group", () -> {
        ConsumerGroupDescription d = plainAdmin.describeConsumerGroups(List.of(consumerGroup))
            .describedGroups().get(consumerGroup).get();
        if (d.type() != GroupType.CONSUMER) {
          throw new IllegalStateException("type " + d.type());
        }
        return "type " + d.type() + ", state " + d.groupState();
      });

      for (String mech : List.of("SCRAM-SHA-256", "SCRAM-SHA-512")) {
        step("SASL_PLAINTEXT " + mech + ": produce", () ->
            produce(scram("producer", mech, ADMIN, ADMIN_PW), topic, mech + "-" + RUN));
        step("SASL_PLAINTEXT " + mech + ": consume (classic group)", () ->
            consume(scram("consumer", mech, ADMIN, ADMIN_PW), topic,
                "kwire-smoke-" + mech + "-" + RUN, "classic", mech + "-" + RUN, null));
      }

      step("SASL_PLAINTEXT: a wrong password is refused", () -> {
        Properties p = scram("bad", "SCRAM-SHA-256", USER, "not-the-password");
        p.put("request.timeout.ms", "10000");
        p.put("default.api.timeout.ms", "15000");
        try (Admin bad = Admin.create(p)) {
          bad.listTopics().names().get();
        } catch (ExecutionException e) {
          if (e.getCause() instanceof org.apache.kafka.common.errors.SaslAuthenticationException) {
            return "SaslAuthenticationException";
          }
          throw e;
        }
        throw new IllegalStateException("listTopics worked with a wrong password");
      });

      step("transactions: commit a transaction, read_committed", () -> {
        Properties p = plaintext("tx-producer");
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", StringSerializer.class.getName());
        p.put("transactional.id", "kwire-smoke-tx-" + RUN);
        p.put("max.block.ms", "60000");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
          producer.initTransactions();
          producer.beginTransaction();
          producer.send(new ProducerRecord<>(txTopic, "k", "tx-" + RUN));
          producer.commitTransaction();
        }
        return consume(plaintext("tx-consumer"), txTopic, "kwire-smoke-tx-" + RUN, "consumer",
            "tx-" + RUN, "read_committed");
      });

      final DelegationToken[] token = new DelegationToken[1];
      step("delegation token: create (SASL SCRAM-SHA-512)", () -> {
        token[0] = saslAdmin.createDelegationToken(new CreateDelegationTokenOptions())
            .delegationToken().get();
        return "token " + token[0].tokenInfo().tokenId() + ", owner "
            + token[0].tokenInfo().owner();
      });
      step("delegation token: describe", () -> {
        if (token[0] == null) {
          throw new IllegalStateException("no token");
        }
        String id = token[0].tokenInfo().tokenId();
        List<DelegationToken> tokens = until("the token in describeDelegationToken",
            () -> saslAdmin.describeDelegationToken(new DescribeDelegationTokenOptions())
                .delegationTokens().get(),
            l -> l.stream().anyMatch(t -> t.tokenInfo().tokenId().equals(id)));
        return tokens.size() + " token(s), expiry "
            + java.time.Instant.ofEpochMilli(token[0].tokenInfo().expiryTimestamp());
      });
      step("delegation token: authenticate with it (SCRAM-SHA-256, tokenauth)", () -> {
        if (token[0] == null) {
          throw new IllegalStateException("no token");
        }
        try (Admin tokenAdmin = Admin.create(tokenAuth("token", token[0]))) {
          Set<String> names = until("listTopics over the token",
              () -> tokenAdmin.listTopics().names().get(), n -> n.contains(topic));
          return "listTopics: " + names.size() + " topics";
        }
      });
      step("delegation token: refused on PLAINTEXT", () -> {
        try {
          plainAdmin.createDelegationToken().delegationToken().get();
        } catch (ExecutionException e) {
          return e.getCause().getClass().getSimpleName();
        }
        throw new IllegalStateException("a token was created over PLAINTEXT");
      });

      AclBinding deny = new AclBinding(
          new ResourcePattern(ResourceType.TOPIC, aclTopic, PatternType.LITERAL),
          new AccessControlEntry("User:" + USER, "*", AclOperation.WRITE, AclPermissionType.DENY));
      step("ACL: create DENY WRITE on " + aclTopic + " for User:" + USER, () -> {
        saslAdmin.createAcls(List.of(deny)).all().get();
        AclBindingFilter filter = new AclBindingFilter(
            new ResourcePatternFilter(ResourceType.TOPIC, aclTopic, PatternType.LITERAL),
            AccessControlEntryFilter.ANY);
        Collection<AclBinding> acls = until("the ACL in describeAcls",
            () -> saslAdmin.describeAcls(filter).values().get(), l -> l.contains(deny));
        return acls.size() + " ACL(s) on " + aclTopic;
      });
      step("ACL: User:" + USER + " may not write " + aclTopic, () -> {
        Properties p = scram("denied", "SCRAM-SHA-256", USER, USER_PW);
        try {
          produce(p, aclTopic, "denied-" + RUN);
        } catch (ExecutionException e) {
          if (e.getCause() instanceof TopicAuthorizationException) {
            return "TopicAuthorizationException";
          }
          throw e;
        } catch (TopicAuthorizationException e) {
          return "TopicAuthorizationException";
        }
        throw new IllegalStateException("the write was allowed");
      });
      step("ACL: User:" + USER + " may write " + topic + " (no ACL: allowed)", () ->
          produce(scram("allowed", "SCRAM-SHA-256", USER, USER_PW), topic, "user-" + RUN));

      step("share group: consume (KafkaShareConsumer, KIP-932)", () -> {
        // A share group starts at the latest offset unless the group config says otherwise.
        ConfigResource group = new ConfigResource(ConfigResource.Type.GROUP, shareGroup);
        plainAdmin.incrementalAlterConfigs(Map.of(group, List.of(new AlterConfigOp(
            new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET))))
            .all().get();
        Map<String, Object> p = new HashMap<>();
        plaintext("share").forEach((k, v) -> p.put((String) k, v));
        p.put("group.id", shareGroup);
        p.put("key.deserializer", StringDeserializer.class.getName());
        p.put("value.deserializer", StringDeserializer.class.getName());
        long deadline = System.nanoTime() + STEP_DEADLINE.toNanos();
        try (KafkaShareConsumer<String, String> c = new KafkaShareConsumer<>(p)) {
          c.subscribe(List.of(topic));
          while (System.nanoTime() < deadline) {
            for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(500))) {
              if (("plain-" + RUN).equals(r.value())) {
                c.commitSync();
                return "read " + topic + "-" + r.partition() + "@" + r.offset()
                    + ", delivery count " + r.deliveryCount().orElse((short) -1);
              }
            }
          }
        }
        throw new IllegalStateException("no record within " + STEP_DEADLINE.toSeconds() + " s");
      });
      step("share group: list share groups", () -> {
        Collection<GroupListing> groups = until("the share group in listGroups",
            () -> plainAdmin.listGroups(ListGroupsOptions.forShareGroups()).all().get(),
            l -> l.stream().anyMatch(g -> g.groupId().equals(shareGroup)));
        List<String> ids = new ArrayList<>();
        groups.forEach(g -> ids.add(g.groupId() + " (" + g.type().orElse(null) + ")"));
        ShareGroupDescription d = plainAdmin.describeShareGroups(List.of(shareGroup))
            .describedGroups().get(shareGroup).get();
        return ids + ", state " + d.groupState();
      });
    }

    System.out.println(failures == 0 ? "smoke: every step worked"
        : "smoke: " + failures + " step(s) FAILED");
    System.exit(failures == 0 ? 0 : 1);
  }
}
