// franz-go (github.com/twmb/franz-go: kgo, kadm, kmsg; versions pinned in go.mod and go.sum)
// against a broker of tools/kafka-broker/broker.sh: produce with each codec (idempotent),
// consume in a classic and a KIP-848 group, a share group (KIP-932), transactions, SASL
// SCRAM and delegation tokens, what kadm offers, and the requests kadm has no call for sent
// as kmsg requests (the share-group state APIs, a streams group). tools/kafka-broker/
// clients.sh franz-go runs it (tools/proxy/live.sh through kwire proxy). Every step prints
// "ok" or "FAIL"; the exit status is 0 only when every step did what it should.
package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

const stepDeadline = 60 * time.Second

var (
	failures, steps int
	run             = randHex(4)
)

func randHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

func env(name string) string {
	v := os.Getenv(name)
	if v == "" {
		fmt.Fprintf(os.Stderr, "franz-go: %s is not set (clients.sh exports broker.env)\n", name)
		os.Exit(2)
	}
	return v
}

func step(name string, fn func(ctx context.Context) (string, error)) {
	steps++
	t0 := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 2*stepDeadline)
	defer cancel()
	var detail string
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panic: %v", r)
			}
		}()
		detail, err = fn(ctx)
	}()
	ms := time.Since(t0).Milliseconds()
	if err != nil {
		failures++
		fmt.Printf("FAIL  %-60s %6d ms  %v\n", name, ms, err)
		return
	}
	fmt.Printf("ok    %-60s %6d ms  %s\n", name, ms, detail)
}

// check returns err, else the result's own Error() (kadm's per-item errors), if it has one.
func check(res any, err error) error {
	if err != nil {
		return err
	}
	if e, ok := res.(interface{ Error() error }); ok {
		return e.Error()
	}
	return nil
}

// until retries fn until it returns nil or the deadline passes.
func until(ctx context.Context, what string, fn func() error) error {
	deadline := time.Now().Add(stepDeadline)
	var err error
	for time.Now().Before(deadline) {
		if err = fn(); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %w (last: %v)", what, ctx.Err(), err)
		case <-time.After(250 * time.Millisecond):
		}
	}
	return fmt.Errorf("%s not seen within %v; last: %v", what, stepDeadline, err)
}

// expect returns nil when err is the broker error want.
func expect(err error, want error) (string, error) {
	if err == nil {
		return "", fmt.Errorf("expected %v, got success", want)
	}
	if errors.Is(err, want) {
		return "refused as expected: " + want.(*kerr.Error).Message, nil
	}
	return "", fmt.Errorf("expected %v, got %w", want, err)
}

func codeErr(code int16) error { return kerr.ErrorForCode(code) }

func main() {
	plain := env("KWIRE_KAFKA_BOOTSTRAP_PLAINTEXT")
	sasl := env("KWIRE_KAFKA_BOOTSTRAP_SASL_PLAINTEXT")
	adminUser, adminPw := env("KWIRE_KAFKA_SCRAM_USER"), env("KWIRE_KAFKA_SCRAM_PASSWORD")
	user, userPw := env("KWIRE_KAFKA_SCRAM_USER2"), env("KWIRE_KAFKA_SCRAM_PASSWORD2")
	fmt.Printf("clients (franz-go): PLAINTEXT %s, SASL_PLAINTEXT %s, run %s\n", plain, sasl, run)

	topic := "kwire-franz-" + run
	txTopic := "kwire-franz-tx-" + run
	miscTopic := "kwire-franz-misc-" + run
	classicGroup := "kwire-franz-classic-" + run
	group848 := "kwire-franz-848-" + run
	shareGroup := "kwire-franz-share-" + run
	streamsGroup := "kwire-franz-streams-" + run
	txID := "kwire-franz-tx-" + run

	base := func(id string, extra ...kgo.Opt) []kgo.Opt {
		return append([]kgo.Opt{kgo.SeedBrokers(plain), kgo.ClientID("kwire-franz-go-" + id),
			kgo.RequestTimeoutOverhead(20 * time.Second)}, extra...)
	}
	cl, err := kgo.NewClient(base("admin")...)
	if err != nil {
		fmt.Println("FAIL  client:", err)
		os.Exit(1)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	saslCl, err := kgo.NewClient(kgo.SeedBrokers(sasl), kgo.ClientID("kwire-franz-go-sasl"),
		kgo.SASL(scram.Auth{User: adminUser, Pass: adminPw}.AsSha512Mechanism()))
	if err != nil {
		fmt.Println("FAIL  client:", err)
		os.Exit(1)
	}
	defer saslCl.Close()
	saslAdm := kadm.NewClient(saslCl)

	// ---- Cluster.
	var nodeID int32 = -1
	step("cluster: ApiVersions, Metadata (ListBrokers)", func(ctx context.Context) (string, error) {
		v, err := adm.ApiVersions(ctx)
		if err != nil {
			return "", err
		}
		bs, err := adm.ListBrokers(ctx)
		if err != nil {
			return "", err
		}
		if len(bs) != 1 {
			return "", fmt.Errorf("brokers %v", bs)
		}
		nodeID = bs[0].NodeID
		n := 0
		for _, b := range v {
			b.EachKeySorted(func(int16, int16, int16) { n++ })
		}
		return fmt.Sprintf("%d API keys, broker %d", n, nodeID), nil
	})
	step("cluster: DescribeCluster (kmsg)", func(ctx context.Context) (string, error) {
		req := kmsg.NewPtrDescribeClusterRequest()
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			return "", err
		}
		if err := codeErr(resp.ErrorCode); err != nil {
			return "", err
		}
		return fmt.Sprintf("cluster %v, controller %d", resp.ClusterID, resp.ControllerID), nil
	})
	step("cluster: DescribeQuorum (kmsg)", func(ctx context.Context) (string, error) {
		req := kmsg.NewPtrDescribeQuorumRequest()
		t := kmsg.NewDescribeQuorumRequestTopic()
		t.Topic = "__cluster_metadata"
		p := kmsg.NewDescribeQuorumRequestTopicPartition()
		t.Partitions = append(t.Partitions, p)
		req.Topics = append(req.Topics, t)
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			return "", err
		}
		if err := codeErr(resp.ErrorCode); err != nil {
			return "", err
		}
		if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
			return "", fmt.Errorf("answer %+v", resp.Topics)
		}
		pp := resp.Topics[0].Partitions[0]
		return fmt.Sprintf("leader %d, epoch %d", pp.LeaderID, pp.LeaderEpoch), codeErr(pp.ErrorCode)
	})
	step("features: UpdateFeatures validateOnly", func(ctx context.Context) (string, error) {
		r, err := adm.UpdateFeatures(ctx, true, kadm.FeatureUpdate{Feature: "group.version", MaxVersionLevel: 1, UpgradeType: 1})
		if err != nil {
			return "", err
		}
		for _, f := range r {
			if f.Err != nil {
				return "", f.Err
			}
		}
		return "validated", nil
	})

	// ---- Topics.
	step("topics: CreateTopics (validate, then 3)", func(ctx context.Context) (string, error) {
		if err := check(adm.ValidateCreateTopics(ctx, 3, 1, nil, "kwire-franz-validate-"+run)); err != nil {
			return "", err
		}
		if err := check(adm.CreateTopics(ctx, 1, 1, nil, topic, txTopic, miscTopic)); err != nil {
			return "", err
		}
		return "created", until(ctx, "the topics", func() error {
			d, err := adm.ListTopics(ctx, topic, txTopic, miscTopic)
			if err == nil {
				err = d.Error()
			}
			return err
		})
	})

	// ---- Produce with each codec (idempotent by default), consume in groups.
	codecs := []struct {
		name  string
		codec kgo.CompressionCodec
	}{{"none", kgo.NoCompression()}, {"gzip", kgo.GzipCompression()},
		{"snappy", kgo.SnappyCompression()}, {"lz4", kgo.Lz4Compression()}, {"zstd", kgo.ZstdCompression()}}
	var written []string
	for _, c := range codecs {
		c := c
		step("producer: "+c.name+" (idempotent)", func(ctx context.Context) (string, error) {
			p, err := kgo.NewClient(base("producer-"+c.name, kgo.ProducerBatchCompression(c.codec),
				kgo.ProducerLinger(50*time.Millisecond), kgo.RecordPartitioner(kgo.ManualPartitioner()))...)
			if err != nil {
				return "", err
			}
			defer p.Close()
			var rs []*kgo.Record
			for i := 0; i < 3; i++ {
				v := fmt.Sprintf("%s-%d-%s-%s", c.name, i, run, strings.Repeat("x", 200))
				rs = append(rs, &kgo.Record{Topic: topic, Partition: 0, Key: []byte("k"), Value: []byte(v)})
				written = append(written, v)
			}
			res := p.ProduceSync(ctx, rs...)
			if err := res.FirstErr(); err != nil {
				return "", err
			}
			return fmt.Sprintf("%s-0@%d", topic, rs[2].Offset), nil
		})
	}
	consume := func(ctx context.Context, cl *kgo.Client, want []string) (int, error) {
		missing := map[string]bool{}
		for _, v := range want {
			missing[v] = true
		}
		n := 0
		deadline := time.Now().Add(stepDeadline)
		for len(missing) > 0 && time.Now().Before(deadline) {
			pctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
			fs := cl.PollFetches(pctx)
			cancel()
			for _, e := range fs.Errors() {
				if !errors.Is(e.Err, context.DeadlineExceeded) {
					return n, e.Err
				}
			}
			fs.EachRecord(func(r *kgo.Record) {
				n++
				delete(missing, string(r.Value))
			})
		}
		if len(missing) > 0 {
			return n, fmt.Errorf("%d records not read", len(missing))
		}
		return n, nil
	}
	for _, g := range []struct{ name, group, what string }{
		{"classic", classicGroup, "classic group (JoinGroup, SyncGroup, Heartbeat)"},
		{"848", group848, "KIP-848 group (ServerSideBalancer)"},
	} {
		g := g
		step("consumer: "+g.what+", commit", func(ctx context.Context) (string, error) {
			opts := base("consumer-"+g.name, kgo.ConsumerGroup(g.group), kgo.ConsumeTopics(topic),
				kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.DisableAutoCommit(),
				kgo.HeartbeatInterval(300*time.Millisecond))
			if g.name == "848" {
				opts = append(opts, kgo.ServerSideBalancer())
			}
			c, err := kgo.NewClient(opts...)
			if err != nil {
				return "", err
			}
			defer c.Close()
			n, err := consume(ctx, c, written)
			if err != nil {
				return "", err
			}
			if err := c.CommitUncommittedOffsets(ctx); err != nil {
				return "", err
			}
			time.Sleep(700 * time.Millisecond) // a heartbeat or two
			return fmt.Sprintf("%d records", n), nil
		})
	}

	// ---- Groups through kadm.
	step("groups: ListGroups, DescribeGroups, ConsumerGroupDescribe, Lag", func(ctx context.Context) (string, error) {
		if err := until(ctx, "both groups listed", func() error {
			l, err := adm.ListGroups(ctx)
			if err != nil {
				return err
			}
			if _, ok := l[classicGroup]; !ok {
				return fmt.Errorf("no %s", classicGroup)
			}
			if _, ok := l[group848]; !ok {
				return fmt.Errorf("no %s", group848)
			}
			return nil
		}); err != nil {
			return "", err
		}
		if err := check(adm.DescribeGroups(ctx, classicGroup)); err != nil {
			return "", err
		}
		d, err := adm.DescribeConsumerGroups(ctx, group848)
		if err := check(d, err); err != nil {
			return "", err
		}
		lag, err := adm.Lag(ctx, classicGroup)
		if err := check(lag, err); err != nil {
			return "", err
		}
		return fmt.Sprintf("%s: %s; lag %d", group848, d[group848].State, lag[classicGroup].Lag.Total()), nil
	})
	step("groups: OffsetFetch, OffsetCommit, OffsetDelete", func(ctx context.Context) (string, error) {
		o, err := adm.FetchOffsets(ctx, classicGroup)
		if err := check(o, err); err != nil {
			return "", err
		}
		got, _ := o.Lookup(topic, 0)
		if got.At != int64(len(written)) {
			return "", fmt.Errorf("committed %d", got.At)
		}
		var os kadm.Offsets
		os.Add(kadm.Offset{Topic: topic, Partition: 0, At: 2, LeaderEpoch: -1})
		if err := check(adm.CommitOffsets(ctx, classicGroup, os)); err != nil {
			return "", err
		}
		if err := check(adm.DeleteOffsets(ctx, classicGroup, kadm.TopicsSet{topic: {0: {}}})); err != nil {
			return "", err
		}
		return fmt.Sprintf("committed %d, set 2, deleted", got.At), nil
	})
	step("groups: DeleteGroups", func(ctx context.Context) (string, error) {
		return "deleted 2", check(adm.DeleteGroups(ctx, classicGroup, group848))
	})

	// ---- Offsets, records, partitions.
	step("offsets: ListOffsets (start, end, time, max timestamp)", func(ctx context.Context) (string, error) {
		start, err := adm.ListStartOffsets(ctx, topic)
		if err := check(start, err); err != nil {
			return "", err
		}
		end, err := adm.ListEndOffsets(ctx, topic)
		if err := check(end, err); err != nil {
			return "", err
		}
		if err := check(adm.ListOffsetsAfterMilli(ctx, 0, topic)); err != nil {
			return "", err
		}
		if err := check(adm.ListMaxTimestampOffsets(ctx, topic)); err != nil {
			return "", err
		}
		s, _ := start.Lookup(topic, 0)
		e, _ := end.Lookup(topic, 0)
		if s.Offset != 0 || e.Offset != int64(len(written)) {
			return "", fmt.Errorf("start %d end %d", s.Offset, e.Offset)
		}
		return fmt.Sprintf("start %d, end %d, leader epoch %d", s.Offset, e.Offset, e.LeaderEpoch), nil
	})
	step("offsets: OffsetForLeaderEpoch", func(ctx context.Context) (string, error) {
		var req kadm.OffsetForLeaderEpochRequest
		req.Add(topic, 0, 0)
		r, err := adm.OffsetForLeaderEpoch(ctx, req)
		if err != nil {
			return "", err
		}
		o := r[topic][0]
		if o.Err != nil {
			return "", o.Err
		}
		return fmt.Sprintf("epoch %d ends at %d", o.LeaderEpoch, o.EndOffset), nil
	})
	step("records: DeleteRecords", func(ctx context.Context) (string, error) {
		var os kadm.Offsets
		os.Add(kadm.Offset{Topic: topic, Partition: 0, At: 1, LeaderEpoch: -1})
		r, err := adm.DeleteRecords(ctx, os)
		if err := check(r, err); err != nil {
			return "", err
		}
		return fmt.Sprintf("low watermark %d", r[topic][0].LowWatermark), nil
	})
	step("topics: CreatePartitions (validate, 1 -> 2)", func(ctx context.Context) (string, error) {
		if err := check(adm.ValidateCreatePartitions(ctx, 1, miscTopic)); err != nil {
			return "", err
		}
		return "2 partitions", check(adm.CreatePartitions(ctx, 1, miscTopic))
	})

	// ---- Configs.
	step("configs: DescribeConfigs (topic, broker)", func(ctx context.Context) (string, error) {
		t, err := adm.DescribeTopicConfigs(ctx, miscTopic)
		if err := check(t, err); err != nil {
			return "", err
		}
		b, err := adm.DescribeBrokerConfigs(ctx, nodeID)
		if err := check(b, err); err != nil {
			return "", err
		}
		return fmt.Sprintf("topic %d, broker %d entries", len(t[0].Configs), len(b[0].Configs)), nil
	})
	step("configs: IncrementalAlterConfigs + AlterConfigs (topic)", func(ctx context.Context) (string, error) {
		if err := check(adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "retention.ms", Value: kadm.StringPtr("3600000")}}, miscTopic)); err != nil {
			return "", err
		}
		// AlterConfigs (the non-incremental API) replaces the topic's whole dynamic config.
		if err := check(adm.ValidateAlterTopicConfigsState(ctx, []kadm.AlterConfig{{Name: "retention.ms", Value: kadm.StringPtr("7200000")}}, miscTopic)); err != nil {
			return "", err
		}
		if err := check(adm.AlterTopicConfigsState(ctx, []kadm.AlterConfig{{Name: "retention.ms", Value: kadm.StringPtr("7200000")}}, miscTopic)); err != nil {
			return "", err
		}
		var v string
		return "retention.ms=7200000", until(ctx, "retention.ms=7200000", func() error {
			rc, err := adm.DescribeTopicConfigs(ctx, miscTopic)
			if err := check(rc, err); err != nil {
				return err
			}
			for _, c := range rc[0].Configs {
				if c.Key == "retention.ms" && c.Value != nil {
					v = *c.Value
				}
			}
			if v != "7200000" {
				return fmt.Errorf("retention.ms=%s", v)
			}
			return nil
		})
	})
	step("configs: ListConfigResources", func(ctx context.Context) (string, error) {
		r, err := adm.ListConfigResources(ctx)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%d resources", len(r.Resources)), nil
	})

	// ---- ACLs, quotas, SCRAM, delegation tokens.
	step("ACL: CreateAcls, DescribeAcls, DeleteAcls", func(ctx context.Context) (string, error) {
		b := kadm.NewACLs().Topics(miscTopic).ResourcePatternType(kadm.ACLPatternLiteral).
			Deny("User:" + user).DenyHosts("*").Operations(kadm.OpWrite)
		cr, err := adm.CreateACLs(ctx, b)
		if err != nil {
			return "", err
		}
		for _, r := range cr {
			if r.Err != nil {
				return "", r.Err
			}
		}
		if err := until(ctx, "the ACL", func() error {
			d, err := adm.DescribeACLs(ctx, b)
			if err != nil {
				return err
			}
			for _, r := range d {
				if r.Err != nil {
					return r.Err
				}
				if len(r.Described) == 1 {
					return nil
				}
			}
			return errors.New("not described")
		}); err != nil {
			return "", err
		}
		dr, err := adm.DeleteACLs(ctx, b)
		if err != nil {
			return "", err
		}
		n := 0
		for _, r := range dr {
			if r.Err != nil {
				return "", r.Err
			}
			n += len(r.Deleted)
		}
		return fmt.Sprintf("created, described, %d deleted", n), nil
	})
	step("quotas: AlterClientQuotas, DescribeClientQuotas", func(ctx context.Context) (string, error) {
		name := "kwire-franz-quota-" + run
		entity := kadm.ClientQuotaEntity{{Type: "client-id", Name: &name}}
		if err := check(adm.AlterClientQuotas(ctx, []kadm.AlterClientQuotaEntry{{Entity: entity,
			Ops: []kadm.AlterClientQuotaOp{{Key: "consumer_byte_rate", Value: 2097152}}}})); err != nil {
			return "", err
		}
		if err := until(ctx, "the quota", func() error {
			d, err := adm.DescribeClientQuotas(ctx, true, []kadm.DescribeClientQuotaComponent{{Type: "client-id", MatchName: &name}})
			if err != nil {
				return err
			}
			if len(d) != 1 {
				return fmt.Errorf("%d quotas", len(d))
			}
			return nil
		}); err != nil {
			return "", err
		}
		return "set, described, removed", check(adm.AlterClientQuotas(ctx, []kadm.AlterClientQuotaEntry{{Entity: entity,
			Ops: []kadm.AlterClientQuotaOp{{Key: "consumer_byte_rate", Remove: true}}}}))
	})
	step("SCRAM: AlterUserScramCredentials, DescribeUserScramCredentials, log in", func(ctx context.Context) (string, error) {
		u, pw := "kwire-franz-scram-"+run, randHex(12)
		if err := check(adm.AlterUserSCRAMs(ctx, nil, []kadm.UpsertSCRAM{{User: u, Mechanism: kadm.ScramSha512, Iterations: 4096, Password: pw}})); err != nil {
			return "", err
		}
		if err := until(ctx, "the user", func() error { return check(adm.DescribeUserSCRAMs(ctx, u)) }); err != nil {
			return "", err
		}
		c, err := kgo.NewClient(kgo.SeedBrokers(sasl), kgo.ClientID("kwire-franz-go-scram"),
			kgo.SASL(scram.Auth{User: u, Pass: pw}.AsSha512Mechanism()))
		if err != nil {
			return "", err
		}
		defer c.Close()
		if err := until(ctx, "a login", func() error { return check(kadm.NewClient(c).ListTopics(ctx, topic)) }); err != nil {
			return "", err
		}
		return "created, logged in, deleted", check(adm.AlterUserSCRAMs(ctx, []kadm.DeleteSCRAM{{User: u, Mechanism: kadm.ScramSha512}}, nil))
	})
	step("SCRAM: a wrong password is refused", func(ctx context.Context) (string, error) {
		c, err := kgo.NewClient(kgo.SeedBrokers(sasl), kgo.ClientID("kwire-franz-go-bad"),
			kgo.SASL(scram.Auth{User: user, Pass: "not-" + userPw}.AsSha256Mechanism()), kgo.RetryTimeout(5*time.Second))
		if err != nil {
			return "", err
		}
		defer c.Close()
		_, err = kadm.NewClient(c).ListTopics(ctx, topic)
		return expect(err, kerr.SaslAuthenticationFailed)
	})
	step("delegation token: create, describe, renew, log in, expire (SASL)", func(ctx context.Context) (string, error) {
		t, err := saslAdm.CreateDelegationToken(ctx, kadm.CreateDelegationToken{MaxLifetime: time.Hour})
		if err != nil {
			return "", err
		}
		if err := until(ctx, "the token", func() error {
			ts, err := saslAdm.DescribeDelegationTokens(ctx)
			if err != nil {
				return err
			}
			for _, x := range ts {
				if x.TokenID == t.TokenID {
					return nil
				}
			}
			return errors.New("not described")
		}); err != nil {
			return "", err
		}
		if _, err := saslAdm.RenewDelegationToken(ctx, t.HMAC, 30*time.Minute); err != nil {
			return "", err
		}
		c, err := kgo.NewClient(kgo.SeedBrokers(sasl), kgo.ClientID("kwire-franz-go-token"),
			kgo.SASL(scram.Auth{User: t.TokenID, Pass: base64.StdEncoding.EncodeToString(t.HMAC), IsToken: true}.AsSha256Mechanism()))
		if err != nil {
			return "", err
		}
		defer c.Close()
		if err := until(ctx, "a login with the token", func() error { return check(kadm.NewClient(c).ListTopics(ctx, topic)) }); err != nil {
			return "", err
		}
		if _, err := saslAdm.ExpireDelegationToken(ctx, t.HMAC, -1); err != nil {
			return "", err
		}
		return "token " + t.TokenID, nil
	})

	// ---- Log dirs, reassignments, leaders.
	var logDir string
	step("log dirs: DescribeLogDirs, AlterReplicaLogDirs (same dir)", func(ctx context.Context) (string, error) {
		d, err := adm.DescribeAllLogDirs(ctx, nil)
		if err != nil {
			return "", err
		}
		d.Each(func(l kadm.DescribedLogDir) { logDir = l.Dir })
		if logDir == "" {
			return "", errors.New("no log dir")
		}
		r, err := adm.AlterAllReplicaLogDirs(ctx, kadm.AlterReplicaLogDirsReq{logDir: {topic: {0: {}}}})
		if err != nil {
			return "", err
		}
		var aerr error
		r.Each(func(x kadm.AlterReplicaLogDirsResponse) {
			if x.Err != nil {
				aerr = x.Err
			}
		})
		return logDir, aerr
	})
	step("reassignments: AlterPartitionReassignments (missing broker)", func(ctx context.Context) (string, error) {
		r, err := adm.AlterPartitionAssignments(ctx, kadm.AlterPartitionAssignmentsReq{topic: {0: {4242}}})
		if err != nil {
			return "", err
		}
		return expect(r.Error(), kerr.InvalidReplicaAssignment)
	})
	step("reassignments: ListPartitionReassignments", func(ctx context.Context) (string, error) {
		r, err := adm.ListPartitionReassignments(ctx, kadm.TopicsSet{topic: {0: {}}})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%d ongoing", len(r)), nil
	})
	step("leaders: ElectLeaders preferred (ELECTION_NOT_NEEDED)", func(ctx context.Context) (string, error) {
		r, err := adm.ElectLeaders(ctx, kadm.ElectPreferredReplica, kadm.TopicsSet{topic: {0: {}}})
		if err != nil {
			return "", err
		}
		return expect(r[topic][0].Err, kerr.ElectionNotNeeded)
	})

	// ---- Transactions.
	step("transactions: consume-transform-produce (GroupTransactSession)", func(ctx context.Context) (string, error) {
		s, err := kgo.NewGroupTransactSession(base("tx", kgo.TransactionalID(txID),
			kgo.ConsumerGroup("kwire-franz-txg-"+run), kgo.ConsumeTopics(topic),
			kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
			kgo.RecordPartitioner(kgo.ManualPartitioner()))...)
		if err != nil {
			return "", err
		}
		defer s.Close()
		n := 0
		deadline := time.Now().Add(stepDeadline)
		for n == 0 && time.Now().Before(deadline) {
			pctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
			fs := s.PollFetches(pctx)
			cancel()
			n += fs.NumRecords()
		}
		if n == 0 {
			return "", errors.New("nothing read")
		}
		if err := s.Begin(); err != nil {
			return "", err
		}
		if err := s.ProduceSync(ctx, &kgo.Record{Topic: txTopic, Partition: 0, Value: []byte("franz-tx-" + run)}).FirstErr(); err != nil {
			return "", err
		}
		committed, err := s.End(ctx, kgo.TryCommit)
		if err != nil {
			return "", err
		}
		if !committed {
			return "", errors.New("not committed")
		}
		return fmt.Sprintf("read %d, committed with the group's offsets", n), nil
	})
	step("transactions: abort", func(ctx context.Context) (string, error) {
		p, err := kgo.NewClient(base("tx-abort", kgo.TransactionalID(txID+"-abort"), kgo.RecordPartitioner(kgo.ManualPartitioner()))...)
		if err != nil {
			return "", err
		}
		defer p.Close()
		if err := p.BeginTransaction(); err != nil {
			return "", err
		}
		if err := p.ProduceSync(ctx, &kgo.Record{Topic: txTopic, Partition: 0, Value: []byte("aborted")}).FirstErr(); err != nil {
			return "", err
		}
		return "aborted", p.EndTransaction(ctx, kgo.TryAbort)
	})
	step("transactions: ListTransactions, DescribeTransactions, DescribeProducers", func(ctx context.Context) (string, error) {
		var l kadm.ListedTransactions
		if err := until(ctx, "the transaction listed", func() error {
			var err error
			l, err = adm.ListTransactions(ctx, nil, nil)
			if err != nil {
				return err
			}
			if _, ok := l[txID]; !ok {
				return errors.New("not listed")
			}
			return nil
		}); err != nil {
			return "", err
		}
		d, err := adm.DescribeTransactions(ctx, txID)
		if err != nil {
			return "", err
		}
		if d[txID].Err != nil {
			return "", d[txID].Err
		}
		p, err := adm.DescribeProducers(ctx, kadm.TopicsSet{txTopic: {0: {}}})
		if err != nil {
			return "", err
		}
		np := 0
		p.EachProducer(func(kadm.DescribedProducer) { np++ })
		return fmt.Sprintf("%d listed, %s %s, %d producers", len(l), txID, d[txID].State, np), nil
	})
	step("transactions: WriteTxnMarkers (abort a hanging transaction)", func(ctx context.Context) (string, error) {
		p, err := kgo.NewClient(base("tx-hanging", kgo.TransactionalID(txID+"-hanging"), kgo.RecordPartitioner(kgo.ManualPartitioner()))...)
		if err != nil {
			return "", err
		}
		defer p.Close()
		if err := p.BeginTransaction(); err != nil {
			return "", err
		}
		if err := p.ProduceSync(ctx, &kgo.Record{Topic: txTopic, Partition: 0, Value: []byte("hanging")}).FirstErr(); err != nil {
			return "", err
		}
		var open *kadm.DescribedProducer
		if err := until(ctx, "an open transaction", func() error {
			d, err := adm.DescribeProducers(ctx, kadm.TopicsSet{txTopic: {0: {}}})
			if err != nil {
				return err
			}
			d.EachProducer(func(x kadm.DescribedProducer) {
				if x.CurrentTxnStartOffset >= 0 {
					x := x
					open = &x
				}
			})
			if open == nil {
				return errors.New("none open")
			}
			return nil
		}); err != nil {
			return "", err
		}
		r, err := adm.WriteTxnMarkers(ctx, kadm.TxnMarkers{ProducerID: open.ProducerID, ProducerEpoch: open.ProducerEpoch,
			Commit: false, CoordinatorEpoch: open.CoordinatorEpoch, Topics: kadm.TopicsSet{txTopic: {0: {}}}})
		if err != nil {
			return "", err
		}
		for _, x := range r {
			for _, t := range x.Topics {
				for _, pp := range t.Partitions {
					if pp.Err != nil {
						return "", pp.Err
					}
				}
			}
		}
		return fmt.Sprintf("aborted producer %d/%d", open.ProducerID, open.ProducerEpoch), nil
	})

	// ---- Share group (kgo.ShareGroup) and kadm's share-group calls.
	step("share group: consume (ShareGroupHeartbeat, ShareFetch, ShareAcknowledge)", func(ctx context.Context) (string, error) {
		// share.auto.offset.reset=earliest on the GROUP resource (kadm has no call for it).
		req := kmsg.NewPtrIncrementalAlterConfigsRequest()
		res := kmsg.NewIncrementalAlterConfigsRequestResource()
		res.ResourceType, res.ResourceName = kmsg.ConfigResourceTypeGroupConfig, shareGroup
		cfg := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		cfg.Name, cfg.Op, cfg.Value = "share.auto.offset.reset", kmsg.IncrementalAlterConfigOpSet, kmsg.StringPtr("earliest")
		res.Configs = append(res.Configs, cfg)
		req.Resources = append(req.Resources, res)
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			return "", err
		}
		if err := codeErr(resp.Resources[0].ErrorCode); err != nil {
			return "", err
		}
		c, err := kgo.NewClient(base("share", kgo.ShareGroup(shareGroup), kgo.ConsumeTopics(topic))...)
		if err != nil {
			return "", err
		}
		defer c.Close()
		missing := map[string]bool{}
		for _, v := range written[1:] { // offset 0 was deleted (DeleteRecords)
			missing[v] = true
		}
		released := false
		deadline := time.Now().Add(stepDeadline)
		for len(missing) > 0 && time.Now().Before(deadline) {
			pctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
			fs := c.PollFetches(pctx)
			cancel()
			fs.EachRecord(func(r *kgo.Record) {
				if !released {
					r.Ack(kgo.AckRelease)
					released = true
					return
				}
				r.Ack(kgo.AckAccept)
				delete(missing, string(r.Value))
			})
			if err := c.FlushAcks(ctx); err != nil {
				return "", err
			}
		}
		if len(missing) > 0 {
			return "", fmt.Errorf("%d records not read", len(missing))
		}
		return fmt.Sprintf("read %d, released one once", len(written)-1), nil
	})
	step("share group: ShareGroupDescribe, DescribeShareGroupOffsets", func(ctx context.Context) (string, error) {
		d, err := adm.DescribeShareGroups(ctx, shareGroup)
		if err := check(d, err); err != nil {
			return "", err
		}
		o, err := adm.DescribeShareGroupOffsets(ctx, shareGroup)
		if err := check(o, err); err != nil {
			return "", err
		}
		return fmt.Sprintf("state %s", d[shareGroup].GroupState), nil
	})
	step("share group: AlterShareGroupOffsets, DeleteShareGroupOffsets, DeleteGroups", func(ctx context.Context) (string, error) {
		var os kadm.Offsets
		os.Add(kadm.Offset{Topic: topic, Partition: 0, At: 3, LeaderEpoch: -1})
		if err := until(ctx, "the share group empty and altered", func() error {
			return check(adm.AlterShareGroupOffsets(ctx, shareGroup, os))
		}); err != nil {
			return "", err
		}
		if err := check(adm.DeleteShareGroupOffsets(ctx, shareGroup, topic)); err != nil {
			return "", err
		}
		return "altered, deleted", check(adm.DeleteGroups(ctx, shareGroup))
	})

	// ---- The share-group state APIs (the share coordinator's, KIP-932), as kmsg requests.
	var topicID [16]byte
	shareStateGroup := "kwire-franz-state-" + run
	step("share state: InitializeShareGroupState (kmsg)", func(ctx context.Context) (string, error) {
		d, err := adm.ListTopics(ctx, topic)
		if err := check(d, err); err != nil {
			return "", err
		}
		topicID = d[topic].ID
		// FindCoordinator (share) makes the coordinator's topic if it is not there yet; the
		// request below retries until the coordinator has loaded it.
		adm.FindShareCoordinators(ctx, shareStateGroup)
		return "initialized", until(ctx, "the state initialized", func() error {
			req := kmsg.NewPtrInitializeShareGroupStateRequest()
			req.GroupID = shareStateGroup
			t := kmsg.NewInitializeShareGroupStateRequestTopic()
			t.TopicID = topicID
			p := kmsg.NewInitializeShareGroupStateRequestTopicPartition()
			p.Partition, p.StateEpoch, p.StartOffset = 0, 1, 2
			t.Partitions = append(t.Partitions, p)
			req.Topics = append(req.Topics, t)
			resp, err := req.RequestWith(ctx, cl)
			if err != nil {
				return err
			}
			return codeErr(resp.Topics[0].Partitions[0].ErrorCode)
		})
	})
	step("share state: WriteShareGroupState (kmsg)", func(ctx context.Context) (string, error) {
		req := kmsg.NewPtrWriteShareGroupStateRequest()
		req.GroupID = shareStateGroup
		t := kmsg.NewWriteShareGroupStateRequestTopic()
		t.TopicID = topicID
		p := kmsg.NewWriteShareGroupStateRequestTopicPartition()
		p.Partition, p.StateEpoch, p.LeaderEpoch, p.StartOffset = 0, 1, 0, 4
		b := kmsg.NewWriteShareGroupStateRequestTopicPartitionStateBatch()
		b.FirstOffset, b.LastOffset, b.DeliveryState, b.DeliveryCount = 4, 5, 2, 1
		p.StateBatches = append(p.StateBatches, b)
		t.Partitions = append(t.Partitions, p)
		req.Topics = append(req.Topics, t)
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			return "", err
		}
		return "start offset 4", codeErr(resp.Topics[0].Partitions[0].ErrorCode)
	})
	step("share state: ReadShareGroupState, ReadShareGroupStateSummary (kmsg)", func(ctx context.Context) (string, error) {
		req := kmsg.NewPtrReadShareGroupStateRequest()
		req.GroupID = shareStateGroup
		t := kmsg.NewReadShareGroupStateRequestTopic()
		t.TopicID = topicID
		p := kmsg.NewReadShareGroupStateRequestTopicPartition()
		p.Partition, p.LeaderEpoch = 0, 0
		t.Partitions = append(t.Partitions, p)
		req.Topics = append(req.Topics, t)
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			return "", err
		}
		rp := resp.Topics[0].Partitions[0]
		if err := codeErr(rp.ErrorCode); err != nil {
			return "", err
		}
		if rp.StartOffset != 4 || len(rp.StateBatches) != 1 {
			return "", fmt.Errorf("read start offset %d, %d batches", rp.StartOffset, len(rp.StateBatches))
		}
		sreq := kmsg.NewPtrReadShareGroupStateSummaryRequest()
		sreq.GroupID = shareStateGroup
		st := kmsg.NewReadShareGroupStateSummaryRequestTopic()
		st.TopicID = topicID
		sp := kmsg.NewReadShareGroupStateSummaryRequestTopicPartition()
		st.Partitions = append(st.Partitions, sp)
		sreq.Topics = append(sreq.Topics, st)
		sresp, err := sreq.RequestWith(ctx, cl)
		if err != nil {
			return "", err
		}
		ss := sresp.Topics[0].Partitions[0]
		return fmt.Sprintf("start offset %d, summary %d", rp.StartOffset, ss.StartOffset), codeErr(ss.ErrorCode)
	})
	step("share state: DeleteShareGroupState (kmsg)", func(ctx context.Context) (string, error) {
		req := kmsg.NewPtrDeleteShareGroupStateRequest()
		req.GroupID = shareStateGroup
		t := kmsg.NewDeleteShareGroupStateRequestTopic()
		t.TopicID = topicID
		t.Partitions = append(t.Partitions, kmsg.NewDeleteShareGroupStateRequestTopicPartition())
		req.Topics = append(req.Topics, t)
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			return "", err
		}
		return "deleted", codeErr(resp.Topics[0].Partitions[0].ErrorCode)
	})

	// ---- A streams group (KIP-1071) as kmsg requests: join with a one-subtopology topology,
	// send its description, describe the group, leave. kgo's Client.Request routes group
	// requests to the coordinator only for the group APIs it knows, and answers "client is
	// too old" for StreamsGroupHeartbeat and StreamsGroupTopologyDescriptionUpdate (kgo
	// v1.22.3 client.go handleCoordinatorReq): they go to the one broker (the coordinator of
	// every group on one node) with Broker.Request.
	toBroker := func(ctx context.Context, req kmsg.Request) (kmsg.Response, error) {
		return cl.Broker(int(nodeID)).Request(ctx, req)
	}
	memberID := randHex(8) + "-" + randHex(8)
	var topologyEpoch int32
	step("streams group: StreamsGroupHeartbeat (join, kmsg)", func(ctx context.Context) (string, error) {
		var resp *kmsg.StreamsGroupHeartbeatResponse
		err := until(ctx, "an assignment", func() error {
			req := kmsg.NewPtrStreamsGroupHeartbeatRequest()
			req.Group, req.MemberID, req.RebalanceTimeoutMillis = streamsGroup, memberID, 30000
			if resp == nil {
				req.MemberEpoch = 0
				pid := randHex(16)
				req.ProcessID = &pid
				topo := kmsg.NewStreamsGroupHeartbeatRequestTopology()
				topo.Epoch = 0
				sub := kmsg.NewStreamsGroupHeartbeatRequestTopologySubtopology()
				sub.SubtopologyID = "0"
				sub.SourceTopics = []string{topic}
				topo.Subtopologies = append(topo.Subtopologies, sub)
				req.Topology = &topo
				req.ActiveTasks, req.StandbyTasks, req.WarmupTasks = []kmsg.TaskIDs{}, []kmsg.TaskIDs{}, []kmsg.TaskIDs{}
			} else {
				req.MemberEpoch = resp.MemberEpoch
			}
			rr, err := toBroker(ctx, req)
			if err != nil {
				return err
			}
			r := rr.(*kmsg.StreamsGroupHeartbeatResponse)
			if err := codeErr(r.ErrorCode); err != nil {
				return fmt.Errorf("%w: %v", err, r.ErrorMessage)
			}
			resp = r
			if len(r.ActiveTasks) == 0 {
				return fmt.Errorf("no tasks yet (epoch %d, status %+v)", r.MemberEpoch, r.Status)
			}
			return nil
		})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("member epoch %d, %d active task group(s)", resp.MemberEpoch, len(resp.ActiveTasks)), nil
	})
	step("streams group: StreamsGroupTopologyDescriptionUpdate (kmsg)", func(ctx context.Context) (string, error) {
		req := kmsg.NewPtrStreamsGroupTopologyDescriptionUpdateRequest()
		req.Group, req.MemberID, req.TopologyEpoch = streamsGroup, memberID, topologyEpoch
		sub := kmsg.NewTopologyDescriptionSubtopology()
		sub.SubtopologyID = "0"
		src := kmsg.NewTopologyDescriptionNode()
		src.Name, src.NodeType, src.SourceTopics, src.Successors = "KSTREAM-SOURCE-0000000000", 0, []string{topic}, []string{"KSTREAM-PEEK-0000000001"}
		proc := kmsg.NewTopologyDescriptionNode()
		proc.Name, proc.NodeType = "KSTREAM-PEEK-0000000001", 1
		sub.Nodes = append(sub.Nodes, src, proc)
		req.TopologyDescription.Subtopologies = append(req.TopologyDescription.Subtopologies, sub)
		rr, err := toBroker(ctx, req)
		if err != nil {
			return "", err
		}
		resp := rr.(*kmsg.StreamsGroupTopologyDescriptionUpdateResponse)
		// The broker stores topology descriptions only through a plugin, and has none here:
		// it answers UNSUPPORTED_VERSION (the heartbeat said TopologyDescriptionRequired=false).
		msg := ""
		if resp.ErrorMessage != nil {
			msg = *resp.ErrorMessage
		}
		d, err := expect(codeErr(resp.ErrorCode), kerr.UnsupportedVersion)
		return d + " (" + msg + ")", err
	})
	step("streams group: StreamsGroupDescribe (kmsg)", func(ctx context.Context) (string, error) {
		req := kmsg.NewPtrStreamsGroupDescribeRequest()
		req.Groups = []string{streamsGroup}
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			return "", err
		}
		g := resp.Groups[0]
		if err := codeErr(g.ErrorCode); err != nil {
			return "", err
		}
		return fmt.Sprintf("state %s, %d member(s)", g.State, len(g.Members)), nil
	})
	step("streams group: leave (StreamsGroupHeartbeat epoch -1), DeleteGroups", func(ctx context.Context) (string, error) {
		req := kmsg.NewPtrStreamsGroupHeartbeatRequest()
		req.Group, req.MemberID, req.MemberEpoch = streamsGroup, memberID, -1
		rr, err := toBroker(ctx, req)
		if err != nil {
			return "", err
		}
		resp := rr.(*kmsg.StreamsGroupHeartbeatResponse)
		if err := codeErr(resp.ErrorCode); err != nil {
			return "", err
		}
		return "left, deleted", until(ctx, "the group deleted", func() error { return check(adm.DeleteGroups(ctx, streamsGroup)) })
	})

	step("topics: DeleteTopics", func(ctx context.Context) (string, error) {
		return "deleted 3", check(adm.DeleteTopics(ctx, topic, txTopic, miscTopic))
	})

	if failures == 0 {
		fmt.Printf("clients (franz-go): all %d steps did what they should\n", steps)
		return
	}
	fmt.Printf("clients (franz-go): %d of %d step(s) FAILED\n", failures, steps)
	os.Exit(1)
}
