"""kafka-python (PyPI, pinned in requirements.txt beside this file) against a broker of
tools/kafka-broker/broker.sh: producers with each codec (idempotent) and a transaction with
the group's offsets, a consumer group, SASL SCRAM, and the KafkaAdminClient's calls.
tools/kafka-broker/clients.sh kafka-python runs it in its venv (tools/proxy/live.sh through
kwire proxy). Every step prints "ok" or "FAIL"; the exit status is 0 only when every step
did what it should."""
import os
import secrets
import sys
import time
import traceback

import kafka
from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import (ACL, ACLFilter, ACLOperation, ACLPermissionType, ConfigResource,
                         ConfigResourceType, OffsetSpec, ResourcePattern, ResourcePatternFilter,
                         ResourceType, ScramMechanism, UserScramCredentialDeletion,
                         UserScramCredentialUpsertion, ACLResourcePatternType)
from kafka.admin._topics import NewTopic
from kafka.structs import OffsetAndMetadata
import kafka.errors as Errors

DEADLINE = 60.0
RUN = secrets.token_hex(4)
PLAIN = os.environ["KWIRE_KAFKA_BOOTSTRAP_PLAINTEXT"]
SASL = os.environ["KWIRE_KAFKA_BOOTSTRAP_SASL_PLAINTEXT"]
ADMIN, ADMIN_PW = os.environ["KWIRE_KAFKA_SCRAM_USER"], os.environ["KWIRE_KAFKA_SCRAM_PASSWORD"]
USER, USER_PW = os.environ["KWIRE_KAFKA_SCRAM_USER2"], os.environ["KWIRE_KAFKA_SCRAM_PASSWORD2"]
CODECS = [None, "gzip", "snappy", "lz4", "zstd"]
failures = steps = 0


def step(name, fn):
    global failures, steps
    steps += 1
    t0 = time.monotonic()
    try:
        detail = fn()
        print(f"ok    {name:<60} {int((time.monotonic() - t0) * 1000):6d} ms  {detail or ''}", flush=True)
    except Exception as e:  # noqa: BLE001 (a step reports whatever went wrong)
        failures += 1
        print(f"FAIL  {name:<60} {int((time.monotonic() - t0) * 1000):6d} ms  {type(e).__name__}: {e}", flush=True)
        traceback.print_exc(file=sys.stderr)


def until(what, fn, ok=lambda x: x):
    deadline = time.monotonic() + DEADLINE
    last = err = None
    while time.monotonic() < deadline:
        try:
            last, err = fn(), None
            if ok(last):
                return last
        except Exception as e:  # noqa: BLE001
            err = e
        time.sleep(0.25)
    raise AssertionError(f"{what} not seen within {DEADLINE:.0f} s; last: {err or last}")


def expect_error(fn, *types):
    try:
        got = fn()
    except types as e:
        return f"refused as expected: {type(e).__name__}"
    raise AssertionError(f"expected {types[0].__name__}, got {got!r}")


def common(client_id):
    return dict(bootstrap_servers=PLAIN, client_id=f"kwire-kafka-python-{client_id}",
                request_timeout_ms=20000)


def scram(client_id, mechanism, user, password):
    return dict(common(client_id), bootstrap_servers=SASL, security_protocol="SASL_PLAINTEXT",
                sasl_mechanism=mechanism, sasl_plain_username=user, sasl_plain_password=password)


def read_all(consumer, wanted):
    missing, n = set(wanted), 0
    deadline = time.monotonic() + DEADLINE
    while missing and time.monotonic() < deadline:
        for records in consumer.poll(timeout_ms=300).values():
            for r in records:
                n += 1
                missing.discard(r.value)
    assert not missing, f"{len(missing)} records not read"
    return n


def main():
    topic, tx_topic, misc = f"kwire-kpy-{RUN}", f"kwire-kpy-tx-{RUN}", f"kwire-kpy-misc-{RUN}"
    group = f"kwire-kpy-group-{RUN}"
    tp, misc_tp = TopicPartition(topic, 0), TopicPartition(misc, 0)
    written = []
    print(f"clients (kafka-python): kafka-python {kafka.__version__}, PLAINTEXT {PLAIN}, "
          f"SASL_PLAINTEXT {SASL}, run {RUN}", flush=True)
    admin = KafkaAdminClient(**common("admin"))
    node = {}

    def cluster():
        c = admin.describe_cluster()
        node["id"] = c["controller_id"]
        f = admin.describe_features()
        q = admin.describe_metadata_quorum()
        return f"cluster {c['cluster_id']}, controller {c['controller_id']}; {len(f)} feature fields; quorum {str(q)[:40]}"
    step("cluster: DescribeCluster, ApiVersions (features), DescribeQuorum", cluster)

    def create():
        admin.create_topics([NewTopic(f"kwire-kpy-validate-{RUN}", 3, 1)], validate_only=True)
        admin.create_topics([NewTopic(topic, 1, 1), NewTopic(tx_topic, 1, 1), NewTopic(misc, 1, 1)])
        until("the topics", lambda: admin.list_topics(), lambda t: {topic, tx_topic, misc} <= set(t))
        d = admin.describe_topics([topic])
        return f"created; {topic}: {len(d[0]['partitions'])} partition(s)"
    step("topics: CreateTopics (validate, then 3), Metadata", create)
    step("topics: DescribeTopicPartitions", lambda: str(admin.describe_topic_partitions([topic]))[:80])

    for codec in CODECS:
        def produce(codec=codec):
            p = KafkaProducer(**common(f"producer-{codec}"), compression_type=codec,
                              enable_idempotence=True, acks="all", linger_ms=50)
            try:
                futures = []
                for i in range(3):
                    v = f"{codec or 'none'}-{i}-{RUN}-{'x' * 200}".encode()
                    written.append(v)
                    futures.append(p.send(topic, key=b"k", value=v, partition=0))
                p.flush()
                md = [f.get(timeout=30) for f in futures]
                return f"{topic}-0@{md[-1].offset}"
            finally:
                p.close()
        step(f"producer: compression_type={codec} (idempotent)", produce)

    def consume():
        c = KafkaConsumer(topic, **common("consumer"), group_id=group, auto_offset_reset="earliest",
                          enable_auto_commit=False, heartbeat_interval_ms=300)
        try:
            n = read_all(c, written)
            c.commit()
            end = time.monotonic() + 0.8
            while time.monotonic() < end:
                c.poll(timeout_ms=100)
            return f"group {group} read {n} records, committed {c.committed(tp)}"
        finally:
            c.close()
    step("consumer: group (JoinGroup, SyncGroup, Heartbeat, OffsetCommit)", consume)

    def groups():
        until("the group listed", lambda: [g[0] if isinstance(g, tuple) else g for g in admin.list_groups()],
              lambda l: any(group in str(x) for x in l))
        d = admin.describe_groups([group])
        o = admin.list_group_offsets({group: None})
        admin.alter_group_offsets(group, {tp: OffsetAndMetadata(2, "", -1)})
        admin.delete_group_offsets(group, [tp])
        return f"described {str(d)[:50]}; offsets {str(o)[:60]}"
    step("groups: ListGroups, DescribeGroups, OffsetFetch, OffsetCommit, OffsetDelete", groups)
    step("groups: DeleteGroups", lambda: str(admin.delete_groups([group])))

    def offsets():
        o = admin.list_partition_offsets({tp: OffsetSpec.EARLIEST})
        e = admin.list_partition_offsets({tp: OffsetSpec.LATEST})
        return f"earliest {o}, latest {e}"[:120]
    step("offsets: ListOffsets", offsets)

    def records():
        p = KafkaProducer(**common("misc"))
        for i in range(5):
            p.send(misc, value=f"m{i}".encode(), partition=0)
        p.flush()
        p.close()
        r = admin.delete_records({misc_tp: 2})
        return str(r)[:100]
    step("records: DeleteRecords", records)
    step("topics: CreatePartitions (validate, 1 -> 2)", lambda: (
        admin.create_partitions({misc: 2}, validate_only=True), str(admin.create_partitions({misc: 2}))[:80])[1])

    def configs():
        res = ConfigResource(ConfigResourceType.TOPIC, misc, configs={"retention.ms": "3600000"})
        admin.alter_configs([res], incremental=True)
        res = ConfigResource(ConfigResourceType.TOPIC, misc, configs={"retention.ms": "7200000"})
        admin.alter_configs([res], incremental=False)
        d = until("retention.ms=7200000", lambda: admin.describe_configs(
            [ConfigResource(ConfigResourceType.TOPIC, misc)]), lambda x: "7200000" in str(x))
        b = admin.describe_configs([ConfigResource(ConfigResourceType.BROKER, str(node.get("id", 1)))])
        lc = admin.list_config_resources()
        return f"IncrementalAlterConfigs, AlterConfigs, DescribeConfigs ({len(str(b))} chars); ListConfigResources {str(lc)[:40]}"
    step("configs: IncrementalAlterConfigs, AlterConfigs, DescribeConfigs, ListConfigResources", configs)

    def acls():
        pattern = ResourcePattern(ResourceType.TOPIC, misc, ACLResourcePatternType.LITERAL)
        acl = ACL(f"User:{USER}", "*", ACLOperation.WRITE, ACLPermissionType.DENY, pattern)
        r = admin.create_acls([acl])
        assert not r.get("failed"), r
        flt = ACLFilter(None, None, ACLOperation.ANY, ACLPermissionType.ANY,
                        ResourcePatternFilter(ResourceType.TOPIC, misc, ACLResourcePatternType.LITERAL))
        until("the ACL", lambda: admin.describe_acls(flt)[0], lambda l: len(l) == 1)
        d = admin.delete_acls([flt])
        return f"created, described, deleted {str(d)[:60]}"
    step("ACL: CreateAcls, DescribeAcls, DeleteAcls", acls)

    def scram_users():
        u, pw = f"kwire-kpy-scram-{RUN}", secrets.token_hex(12)
        admin.alter_user_scram_credentials([UserScramCredentialUpsertion(u, ScramMechanism.SCRAM_SHA_256, pw)])
        until("the user", lambda: admin.describe_user_scram_credentials([u]), lambda d: u in str(d))
        a = KafkaAdminClient(**scram("scram-user", "SCRAM-SHA-256", u, pw))
        try:
            n = len(a.list_topics())
        finally:
            a.close()
        admin.alter_user_scram_credentials([UserScramCredentialDeletion(u, ScramMechanism.SCRAM_SHA_256)])
        return f"created, logged in ({n} topics), deleted"
    step("SCRAM: AlterUserScramCredentials, DescribeUserScramCredentials, log in", scram_users)

    for mech in ("SCRAM-SHA-256", "SCRAM-SHA-512"):
        def sasl(mech=mech):
            p = KafkaProducer(**scram("sasl-producer", mech, ADMIN, ADMIN_PW))
            try:
                md = p.send(topic, value=f"sasl-{mech}-{RUN}".encode(), partition=0).get(timeout=30)
            finally:
                p.close()
            return f"produced {topic}-0@{md.offset} as {ADMIN}"
        step(f"SASL_PLAINTEXT {mech}: produce (SaslHandshake, SaslAuthenticate)", sasl)

    def refused():
        # The broker answers the client-final message with SaslAuthenticate error 58 and
        # closes the connection. kafka-python 3.0.12 reads that answer and the EOF in one
        # pass (net/transport.py _sock_recv) and aborts on the EOF without handing the bytes
        # to the protocol (transport.py:93-95), so it never sees the error: it logs "socket
        # disconnected" and retries until bootstrap_timeout_ms (KafkaTimeoutError).
        def login():
            a = KafkaAdminClient(**scram("bad", "SCRAM-SHA-256", USER, "not-the-password"),
                                 bootstrap_timeout_ms=3000)
            a.close()
        return expect_error(login, Errors.SaslAuthenticationFailedError, Errors.KafkaTimeoutError)
    step("SASL_PLAINTEXT: a wrong password is refused", refused)

    def log_dirs():
        d = admin.describe_log_dirs()
        return str(d)[:100]
    step("log dirs: DescribeLogDirs", log_dirs)

    def reassign():
        r = admin.list_partition_reassignments()
        # kafka-python returns the response (raise_errors does not cover ELECTION_NOT_NEEDED).
        e = admin.elect_leaders(0, {topic: [0]})
        codes = [p.error_code for t in e.replica_election_results for p in t.partition_result]
        assert codes == [84], f"elect_leaders: {e}"
        return f"ListPartitionReassignments {r}; ElectLeaders preferred: ELECTION_NOT_NEEDED (84)"
    step("reassignments, leaders: ListPartitionReassignments, ElectLeaders", reassign)

    def transaction():
        c = KafkaConsumer(topic, **common("tx-in"), group_id=f"kwire-kpy-txg-{RUN}",
                          auto_offset_reset="earliest", enable_auto_commit=False,
                          isolation_level="read_committed")
        p = KafkaProducer(**common("tx"), transactional_id=f"kwire-kpy-tx-{RUN}")
        try:
            p.init_transactions()
            got = []
            deadline = time.monotonic() + DEADLINE
            while not got and time.monotonic() < deadline:
                for records in c.poll(timeout_ms=300).values():
                    got.extend(records)
            assert got, "nothing read"
            p.begin_transaction()
            p.send(tx_topic, value=f"kpy-tx-{RUN}".encode(), partition=0)
            last = got[-1]
            p.send_offsets_to_transaction({TopicPartition(last.topic, last.partition): OffsetAndMetadata(last.offset + 1, "", -1)},
                                          c.group_metadata() if hasattr(c, "group_metadata") else f"kwire-kpy-txg-{RUN}")
            p.commit_transaction()
            p.begin_transaction()
            p.send(tx_topic, value=b"aborted", partition=0)
            p.abort_transaction()
            return f"committed with the group's offset {last.offset + 1}, aborted one"
        finally:
            p.close()
            c.close()
    step("transactions: send_offsets_to_transaction, commit, abort", transaction)

    def txn_admin():
        l = admin.list_transactions()
        d = admin.describe_transactions([f"kwire-kpy-tx-{RUN}"])
        p = admin.describe_producers([TopicPartition(tx_topic, 0)])
        return f"ListTransactions {len(l)}, DescribeTransactions, DescribeProducers {str(p)[:40]}"
    step("transactions: ListTransactions, DescribeTransactions, DescribeProducers", txn_admin)

    step("topics: DeleteTopics", lambda: str(admin.delete_topics([topic, tx_topic, misc]))[:80])
    admin.close()
    if failures:
        print(f"clients (kafka-python): {failures} of {steps} step(s) FAILED")
        return 1
    print(f"clients (kafka-python): all {steps} steps did what they should")
    return 0


if __name__ == "__main__":
    sys.exit(main())
