#!/usr/bin/env python3
"""The `live` vector set and fuzz seeds from a live run (issue 32 item 4).

tools/proxy/live.sh --frames runs real clients against a real Apache Kafka 4.4.0 broker
through `kwire proxy --frames`; each proxy's log (DIR/<client>/<listener>.jsonl) holds
every frame both ways with its verdict and bytes. This writes, from the frames that
conformed:

  conformance/vectors/live.jsonl   accept vectors (conformance/FORMAT.md), at most
                                   --per-key frames per API key x version x direction
                                   (the first ones seen, each at most --max-bytes),
                                   header and body from the Python reference decoder
                                   (tools/conformance_ref.py, Kafka's definitions read
                                   from the pinned kafka-clients jars), which must agree
                                   with what kwire decodes (`kwire decode --json`) and
                                   re-encode to the same bytes;
  corpus/request_frame_fuzzer/live-*, corpus/response_frame_fuzzer/live-*
                                   the same frames as fuzz seeds.

Usage: tools/proxy/live_vectors.py [--live DIR] [--kwire PATH] [--per-key N]
                                   [--max-bytes N] [--clients LIST] [--check]
  --live DIR   a live.sh output folder (default build/live)
  --check      write nothing; exit 1 if the committed files differ from what would be
               written (the frames of a new run differ: ids, timestamps, tokens)
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
SOURCE = ("Apache Kafka 4.4.0 broker and kafka-clients 4.4.0 through kwire proxy "
          "(tools/proxy/live.sh)")


def frames_of(live_dir, clients):
    """(source, report) for every conforming frame with bytes, in log order: the source
    is "<listener>" for the smoke client, "<client>-<listener>" for the others."""
    for client in clients:
        for listener in ("plaintext", "sasl"):
            path = os.path.join(live_dir, client, f"{listener}.jsonl")
            if not os.path.exists(path):
                continue
            source = listener if client == "smoke" else f"{client}-{listener}"
            with open(path) as f:
                for line in f:
                    r = json.loads(line)
                    if "frame" in r and r.get("verdict") in ("ok", "refused") and r.get("api_key", -1) >= 0:
                        yield source, r


def kwire_json(kwire, r):
    args = [kwire, "decode", r["direction"], "--json", "--quiet"]
    if r["direction"] == "response":
        args += ["--api", str(r["api_key"]), "--version", str(r["version"])]
    p = subprocess.run(args, input=r["frame"], capture_output=True, text=True)
    if p.returncode not in (0, 3):
        raise SystemExit(f"live_vectors: kwire cannot decode a frame the proxy passed: {p.stderr}")
    return json.loads(p.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--live", default=os.path.join(ROOT, "build", "live"))
    ap.add_argument("--kwire", default=os.path.join(ROOT, "build", "test", "tools", "kwire", "kwire"))
    ap.add_argument("--per-key", type=int, default=2)
    ap.add_argument("--max-bytes", type=int, default=16384)
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--clients", default="smoke",
                    help="whose frames (live.sh's client folders, comma-separated; default smoke)")
    args = ap.parse_args()

    schemas = ref.release_sets()[0]
    seen = {}
    records, seeds = [], {}
    for listener, r in frames_of(args.live, args.clients.split(",")):
        key = (r["api_key"], r["version"], r["direction"])
        data = bytes.fromhex(r["frame"])
        if seen.get(key, 0) >= args.per_key or len(data) > args.max_bytes:
            continue
        n = seen[key] = seen.get(key, 0) + 1
        msg = schemas.messages[(r["api_key"], r["direction"])]
        got = ref.Decoder(schemas, broker=True).frame(data, r["direction"], r["api_key"], r["version"])
        mine = kwire_json(args.kwire, r)
        if ref.canonical_json(got["header"]) != ref.canonical_json(mine["header"]) or \
                ref.canonical_json(got["body"]) != ref.canonical_json(mine["body"]):
            raise SystemExit(f"live_vectors: the reference decoder and kwire disagree on "
                             f"{msg.api_name} v{r['version']} {r['direction']} ({listener})")
        vid = f"live/{msg.api_name}/v{r['version']}/{r['direction']}/{listener}-{n}"
        rec = ref.accept_record("live", vid, schemas, msg, r["version"], data,
                                got["header"], got["body"])
        rec["source"] = SOURCE
        records.append(rec)
        if r["direction"] == "request":
            seeds[os.path.join("request_frame_fuzzer", f"live-{msg.api_name}-v{r['version']}-{n}")] = data
        else:
            prefix = r["api_key"].to_bytes(2, "big") + r["version"].to_bytes(2, "big")
            seeds[os.path.join("response_frame_fuzzer",
                               f"live-{msg.api_name}-v{r['version']}-{n}")] = prefix + data
    if not records:
        raise SystemExit(f"live_vectors: no frames in {args.live} (run tools/proxy/live.sh first)")
    records.sort(key=lambda x: x["id"])
    text = "".join(json.dumps(x, separators=(",", ":"), ensure_ascii=True) + "\n" for x in records)
    if args.check:
        with open(VECTORS) as f:
            same = f.read() == text
        print(f"live_vectors: {len(records)} vectors; committed set {'matches' if same else 'differs'}")
        return 0 if same else 1
    with open(VECTORS, "w") as f:
        f.write(text)
    for d in ("request_frame_fuzzer", "response_frame_fuzzer"):
        for name in os.listdir(os.path.join(CORPUS, d)):
            if name.startswith("live-"):
                os.remove(os.path.join(CORPUS, d, name))
    for path, data in seeds.items():
        with open(os.path.join(CORPUS, path), "wb") as f:
            f.write(data)
    keys = sorted({(x["api_key"], x["version"]) for x in records})
    print(f"live_vectors: {len(records)} vectors of {len(keys)} API key x version pairs "
          f"({len({k for k, _ in keys})} API keys) -> {os.path.relpath(VECTORS, ROOT)}; "
          f"{len(seeds)} fuzz seeds -> corpus/*/live-*")
    return 0


if __name__ == "__main__":
    sys.exit(main())
