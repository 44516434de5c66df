#!/usr/bin/env python3
"""The `live` vector set and fuzz seeds from a live run (issue 32 item 4).

Regenerate both with one command (a broker and the four clients, then this; 80 s warm on an
idle machine, 76 s of it the live run; 3-4 minutes under load):

    tools/proxy/live_vectors.py --run [--kwire PATH]

--run first runs `tools/proxy/live.sh --frames --clients LIST --out DIR --kwire PATH`: real
clients (Kafka's Java client, librdkafka through kcat, franz-go, kafka-python) against a
real Apache Kafka 4.4.0 broker through `kwire proxy --frames`; each proxy's log
(DIR/<client>/<listener>.jsonl) holds every frame both ways with its verdict and bytes.
Without --run it reads the logs of a run made before (`tools/proxy/live.sh --frames`).
From the frames that conformed it writes:

  conformance/vectors/live.jsonl   accept vectors (conformance/FORMAT.md): for every client
                                   x API key x version x direction the client's connections
                                   carried, the --per-key largest frames of at most
                                   --max-bytes (the richest: a Fetch answer with records,
                                   Metadata with every topic; none that small: the
                                   smallest), so every key x version x direction seen by any
                                   client is covered, by each client that used it (four
                                   clients: 414 vectors, 218 key x version x direction, 77
                                   keys). Header and body from the strict Python reference
                                   decoder (tools/conformance_ref.py, Kafka's definitions
                                   read from the pinned kafka-clients jars), which must agree
                                   with what kwire decodes (`kwire testee`, decode) and
                                   re-encode to the same bytes; a frame either rejects stops
                                   the run. The reference decompresses zstd's raw and RLE
                                   blocks only, so a frame with a compressed zstd block is
                                   passed over for the next largest (a client's Fetch
                                   answers that hold its zstd batch). Each vector names its
                                   client: the id live/<Api>/v<N>/<direction>/<client>-
                                   <listener>-<n>, the member "client", and "source" with
                                   the client software and version its ApiVersions requests
                                   announced (e.g. "librdkafka 2.0.2");
  corpus/request_frame_fuzzer/live-*, corpus/response_frame_fuzzer/live-*
                                   the same frames as fuzz seeds, named like the ids
                                   (live-<Api>-v<N>-<client>-<listener>-<n>; a response's
                                   seed starts with its API key and version, int16 each).

Usage: tools/proxy/live_vectors.py [--run] [--live DIR] [--kwire PATH] [--per-key N]
                                   [--max-bytes N] [--clients LIST] [--check]
  --run        run tools/proxy/live.sh --frames into DIR first (its exit status must be 0)
  --live DIR   a live.sh output folder (default build/live)
  --kwire PATH the kwire binary (default build/test/tools/kwire/kwire)
  --per-key N  frames per client x API key x version x direction (default 1)
  --max-bytes N  the largest frame taken while a smaller one exists (default 16384)
  --clients    whose frames (live.sh's client folders; default java,kcat,franz-go,kafka-python,
               live.sh's default; `smoke` is tools/kafka-broker/smoke.sh)
  --check      write nothing; compare with the committed live.jsonl, print the ids only one
               side has and how many common ids have other contents, and exit 1 unless both
               are the same. From the logs the file was made from it is the same byte for
               byte. A new run gives the same ids (the clients' steps are scripted: two runs
               on 2026-12-03 both gave the same 414) with other contents (356 of the 414):
               correlation ids; topic, group, transactional and client ids (a random suffix
               per run); topic, member and directory UUIDs, the cluster id; producer ids and
               epochs; timestamps; SCRAM salts, salted passwords and auth bytes; token ids
               and HMACs; the proxies' ports in Metadata, FindCoordinator and DescribeCluster
               answers; the log directory's path; record batches (timestamps, CRCs); and now
               and then which frame of a group is the largest (a partition more or less).
Frames carry no secrets worth keeping: the SCRAM users and tokens of a live run are
throwaway (tools/kafka-broker/broker.sh makes new ones for every broker).
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import conformance_ref as ref  # noqa: E402

VECTORS = os.path.join(ROOT, "conformance", "vectors", "live.jsonl")
CORPUS = os.path.join(ROOT, "corpus")
CLIENTS = "java,kcat,franz-go,kafka-python"  # tools/proxy/live.sh's default
LISTENERS = {"plaintext": "PLAINTEXT", "sasl": "SASL_PLAINTEXT (SCRAM)"}
BROKER = "Apache Kafka 4.4.0 (broker)"


def frames_of(live_dir, clients):
    """(client, listener, report) for every frame with bytes that conformed (verdict ok:
    accept vectors; a Produce request a broker refuses a partition of is not taken), in log order
    (a client's PLAINTEXT proxy's log, then its SASL_PLAINTEXT one's)."""
    for client in clients:
        for listener in LISTENERS:
            path = os.path.join(live_dir, client, f"{listener}.jsonl")
            if not os.path.exists(path):
                continue
            with open(path) as f:
                for line in f:
                    r = json.loads(line)
                    if "frame" in r and r.get("verdict") == "ok" and r.get("api_key", -1) >= 0:
                        yield client, listener, r


def software(body):
    """The client software an ApiVersions v3+ request's body announces, or None."""
    name, version = body.get("ClientSoftwareName"), body.get("ClientSoftwareVersion")
    return f"{name} {version}" if name else None


class Kwire:
    """`kwire testee` (the testee protocol, conformance/README.md): one process decodes
    every frame, as `kwire decode --json` would."""

    def __init__(self, path):
        self.p = subprocess.Popen([path, "testee"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True, bufsize=1)
        self.seq = 0
        self.ask({"type": "hello", "protocol": 1})

    def ask(self, q):
        self.p.stdin.write(json.dumps(q, separators=(",", ":")) + "\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            raise SystemExit(f"live_vectors: kwire testee ended (exit {self.p.poll()})")
        return json.loads(line)

    def decode(self, r):
        self.seq += 1
        a = self.ask({"type": "request", "seq": self.seq, "op": "decode", "api_key": r["api_key"],
                      "version": r["version"], "direction": r["direction"], "frame": r["frame"]})
        if a.get("result") != "ok":
            raise SystemExit(f"live_vectors: kwire cannot decode a frame the proxy passed "
                             f"({r['direction']} {r['api_key']} v{r['version']}, {r['frame']}): {a}")
        return a

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=60)


def same(a, b):
    """Equal as values of the JSON mapping (kwire's testee writes members sorted)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def reference(schemas, r):
    """The strict reference decoder's {"header", "body"} of a frame, or None when it cannot
    read it: a zstd batch with compressed blocks (the reference decompresses raw and RLE
    blocks only, tools/conformance_ref.py). Any other fault stops the run."""
    try:
        return ref.Decoder(schemas).frame(bytes.fromhex(r["frame"]), r["direction"],
                                          r["api_key"], r["version"])
    except ref.DecodeError as e:
        if e.kind == "compression_error" and "not implemented by the reference" in str(e):
            return None
        raise SystemExit(f"live_vectors: the reference decoder rejects a frame kwire passed "
                         f"({r['direction']} {r['api_key']} v{r['version']}: {e}): {r['frame']}")


def pick(schemas, live_dir, clients, per_key, max_bytes):
    """The frames to keep, [(client, listener, report, reference decoding)]; what each
    client's ApiVersions requests announced ({client: set("name version")}); and the
    groups the reference could not read any frame of."""
    groups = {}  # (client, key, version, direction) -> [(client, listener, r)] in log order
    announced = {}
    for client, listener, r in frames_of(live_dir, clients):
        groups.setdefault((client, r["api_key"], r["version"], r["direction"]), []).append((client, listener, r))
    kept, unread = [], []
    for key, frames in groups.items():
        # The largest frames of at most max_bytes (the richest: a Fetch answer with
        # records, Metadata with every topic; of equal ones the first); none that small:
        # the smallest ones, so that every client x key x version x direction is covered.
        size = lambda g: len(g[2]["frame"]) // 2  # noqa: E731
        order = sorted([g for g in frames if size(g) <= max_bytes], key=lambda g: -size(g)) or \
            sorted(frames, key=size)
        n = 0
        for client, listener, r in order:
            got = reference(schemas, r)
            if got is None:
                continue
            kept.append((client, listener, r, got))
            n += 1
            if n == per_key:
                break
        if n == 0:
            unread.append(key)
        if key[1] == 18 and key[3] == "request" and key[2] >= 3:
            for _, _, r in frames:
                s = software(ref.Decoder(schemas).frame(bytes.fromhex(r["frame"]), "request", 18,
                                                        r["version"])["body"])
                if s:
                    announced.setdefault(key[0], set()).add(s)
    return kept, announced, unread


def read_committed():
    if not os.path.exists(VECTORS):
        return {}
    with open(VECTORS) as f:
        return {json.loads(line)["id"]: line for line in f}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run", action="store_true", help="run tools/proxy/live.sh --frames first")
    ap.add_argument("--live", default=os.path.join(ROOT, "build", "live"))
    ap.add_argument("--kwire", default=os.path.join(ROOT, "build", "test", "tools", "kwire", "kwire"))
    ap.add_argument("--per-key", type=int, default=1,
                    help="frames per client x API key x version x direction (default 1)")
    ap.add_argument("--max-bytes", type=int, default=16384)
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--clients", default=CLIENTS,
                    help=f"whose frames (live.sh's client folders, comma-separated; default {CLIENTS})")
    args = ap.parse_args()
    if args.per_key < 1 or args.max_bytes < 1:
        ap.error("--per-key and --max-bytes must be at least 1")
    clients = args.clients.split(",")

    if args.run:
        p = subprocess.run([os.path.join(HERE, "live.sh"), "--frames", "--kwire", args.kwire,
                            "--clients", args.clients, "--out", args.live])
        if p.returncode != 0:
            raise SystemExit(f"live_vectors: tools/proxy/live.sh failed (exit {p.returncode}); nothing written")

    schemas = ref.release_sets()[0]
    kept, announced, unread = pick(schemas, args.live, clients, args.per_key, args.max_bytes)
    records, seeds = [], {}
    numbers = {}
    kwire = Kwire(args.kwire)
    for client, listener, r, got in kept:
        stem = (r["api_key"], r["version"], r["direction"], client, listener)
        n = numbers[stem] = numbers.get(stem, 0) + 1
        data = bytes.fromhex(r["frame"])
        msg = schemas.messages[(r["api_key"], r["direction"])]
        mine = kwire.decode(r)
        if not same(got["header"], mine["header"]) or not same(got["body"], mine["body"]):
            raise SystemExit(f"live_vectors: the reference decoder and kwire disagree on "
                             f"{msg.api_name} v{r['version']} {r['direction']} ({client}, {listener}): "
                             f"{r['frame']}")
        name = f"{client}-{listener}-{n}"
        vid = f"live/{msg.api_name}/v{r['version']}/{r['direction']}/{name}"
        rec = ref.accept_record("live", vid, schemas, msg, r["version"], data,
                                got["header"], got["body"])
        who = f"{', '.join(sorted(announced.get(client, ()))) or client} (live.sh client {client})"
        ends = f"{who} to {BROKER}" if r["direction"] == "request" else f"{BROKER} to {who}"
        rec["source"] = (f"{ends}, {LISTENERS[listener]} listener, through kwire proxy "
                         f"(tools/proxy/live.sh)")
        rec["client"] = client
        records.append(rec)
        if r["direction"] == "request":
            seeds[os.path.join("request_frame_fuzzer", f"live-{msg.api_name}-v{r['version']}-{name}")] = data
        else:
            prefix = r["api_key"].to_bytes(2, "big") + r["version"].to_bytes(2, "big")
            seeds[os.path.join("response_frame_fuzzer",
                               f"live-{msg.api_name}-v{r['version']}-{name}")] = prefix + data
    kwire.close()
    for client, key, version, direction in unread:
        print(f"live_vectors: no vector for {client} {key} v{version} {direction}: the reference "
              f"decoder cannot read any of its frames (zstd compressed blocks)", file=sys.stderr)
    if not records:
        raise SystemExit(f"live_vectors: no frames in {args.live} (run tools/proxy/live.sh --frames, "
                         f"or this with --run)")
    records.sort(key=lambda x: x["id"])
    lines = {x["id"]: json.dumps(x, separators=(",", ":"), ensure_ascii=True) + "\n" for x in records}
    text = "".join(lines[x["id"]] for x in records)
    triples = {(x["api_key"], x["version"], x["direction"]) for x in records}
    keys = {x["api_key"] for x in records}
    per_client = {c: sum(1 for x in records if x["client"] == c) for c in clients}
    summary = (f"{len(records)} vectors ({', '.join(f'{c} {n}' for c, n in per_client.items())}) of "
               f"{len(triples)} API key x version x direction triples, {len(keys)} API keys")
    if args.check:
        old = read_committed()
        gone, new = sorted(set(old) - set(lines)), sorted(set(lines) - set(old))
        changed = sum(1 for i in lines if i in old and old[i] != lines[i])
        print(f"live_vectors: {summary}; committed: {len(old)} vectors, {len(gone)} ids only there, "
              f"{len(new)} only here, {changed} of the common ones with other contents")
        for i in gone:
            print(f"  only committed: {i}")
        for i in new:
            print(f"  only here:      {i}")
        return 0 if not gone and not new and not changed else 1
    with open(VECTORS, "w") as f:
        f.write(text)
    for d in ("request_frame_fuzzer", "response_frame_fuzzer"):
        for name in os.listdir(os.path.join(CORPUS, d)):
            if name.startswith("live-"):
                os.remove(os.path.join(CORPUS, d, name))
    for path, data in seeds.items():
        with open(os.path.join(CORPUS, path), "wb") as f:
            f.write(data)
    print(f"live_vectors: {summary} -> {os.path.relpath(VECTORS, ROOT)}; "
          f"{len(seeds)} fuzz seeds -> corpus/*/live-*")
    return 0


if __name__ == "__main__":
    sys.exit(main())
