#!/usr/bin/env python3
"""`kwire pcap` against `kwire proxy` on the same live traffic (tools/proxy/live.sh --capture).

live.sh records the loopback traffic with tcpdump while Kafka's Java client talks to a real
broker through one `kwire proxy --frames` per listener. Every proxy connection is two TCP
streams in the capture: client <-> proxy (requests as sent; responses as the proxy wrote
them, broker addresses rewritten where the proxy says "rewritten") and proxy <-> broker
(the bytes the proxy read and logged). This runs `kwire pcap --frames` over the capture
three times and compares with the proxies' logs (DIR/<listener>.jsonl, or
DIR/<client>/<listener>.jsonl for each client live.sh ran; listeners plaintext and sasl;
bytes compared when the proxies ran with --frames, sizes otherwise):

  client leg   --port <the proxies' listener ports>: one stream per proxy connection, the
               same frames in the same order each way (bytes, API key, version,
               correlation id, verdict; a rewritten response's bytes differ), and nothing
               else; kwire pcap's exit status 0 exactly when every proxy frame conformed
  broker leg   --port <the broker's client ports>: every proxy connection is one stream
               there, byte for byte (other streams, e.g. the broker's own clients, listed;
               responses the broker sent after the proxy closed the connection, which the
               proxy never read, counted)
  guessed      no --port: every proxy connection found twice (both legs); the other Kafka
               streams guessed are listed (e.g. the broker's controller channel)

and, when tshark is installed (--tshark), lists where Wireshark's Kafka dissector reads a
frame's API key, version or correlation id differently (not a failure: its gaps are its
own). Exit status 0 when the client and broker legs agree with the proxies, 1 otherwise.

Usage: tools/pcap/live_compare.py --kwire PATH --capture FILE --out DIR
                                  --broker-ports P[,P...] [--tshark]
"""
import argparse
import collections
import json
import os
import shutil
import subprocess
import sys


def read_lines(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def proxy_logs(out):
    """The proxies' logs: DIR/<listener>.jsonl or DIR/<client>/<listener>.jsonl."""
    logs = []
    for base, _, files in sorted(os.walk(out)):
        for name in ("plaintext", "sasl"):
            if f"{name}.jsonl" in files:
                logs.append(os.path.join(base, f"{name}.jsonl"))
    return logs


def proxy_connections(out):
    """{(log, connection): {"requests": [...], "responses": [...]}}, listen ports."""
    conns, ports = collections.OrderedDict(), set()
    for path in proxy_logs(out):
        name = os.path.relpath(path, out)
        for j in read_lines(path):
            if j.get("event") == "listen":
                ports.add(int(j["address"].rsplit(":", 1)[1]))
            elif j.get("event") in ("connect", "close"):
                c = conns.setdefault((name, j["connection"]), {"requests": [], "responses": []})
                if j["event"] == "close":
                    c["closed"] = j.get("reason", "")
            elif "verdict" in j:
                c = conns.setdefault((name, j["connection"]), {"requests": [], "responses": []})
                c["requests" if j["direction"] == "request" else "responses"].append(j)
    return conns, ports


def run_pcap(kwire, capture, out, name, ports):
    log = os.path.join(out, f"pcap-{name}.jsonl")
    cmd = [kwire, "pcap", capture, "--frames", "--log", log,
           "--summary-json", os.path.join(out, f"pcap-{name}-summary.json")]
    for p in sorted(ports):
        cmd += ["--port", str(p)]
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    with open(os.path.join(out, f"pcap-{name}.log"), "w") as f:
        f.write(r.stderr)
    conns = collections.OrderedDict()
    events = collections.Counter()
    for j in read_lines(log):
        if j.get("event") == "stream":
            conns[j["connection"]] = {"requests": [], "responses": [], "client": j["client"],
                                      "server": j["server"], "partial": j["partial"]}
        elif "event" in j:
            events[j["event"]] += 1
        elif "verdict" in j:
            c = conns[j["connection"]]
            c["requests" if j["direction"] == "request" else "responses"].append(j)
    return r.returncode, conns, events, r.stderr.strip().splitlines()[-1] if r.stderr else ""


FIELDS = ("api_key", "version", "correlation_id", "verdict")


def frame_diff(p, c, bytes_must_match):
    """What differs between a proxy line and a kwire pcap line ("" if nothing). Without
    the proxy's bytes (kwire proxy run without --frames) the sizes are compared."""
    diffs = [f"{k} {p.get(k)} vs {c.get(k)}" for k in FIELDS if p.get(k) != c.get(k)]
    if bytes_must_match and "frame" in p and p["frame"] != c.get("frame"):
        diffs.append(f"bytes differ (size {p.get('size')} vs {c.get('size')})")
    elif bytes_must_match and p.get("size") != c.get("size"):
        diffs.append(f"size {p.get('size')} vs {c.get('size')}")
    return "; ".join(diffs)


def requests_key(frames, with_bytes):
    """A connection's requests, to pair a proxy connection with a capture stream."""
    if with_bytes:
        return tuple(f.get("frame") for f in frames)
    return tuple((f.get("api_key"), f.get("version"), f.get("correlation_id"), f.get("size"))
                 for f in frames)


def compare(key, p, c, cid, leg):
    """The differences between a proxy connection and a capture stream."""
    problems = []
    for i, (pf, cf) in enumerate(zip(p["requests"], c["requests"])):
        d = frame_diff(pf, cf, True)
        if d:
            problems.append(f"{leg}: proxy {key} request {i} / stream {cid}: {d}")
    # The broker may answer after the proxy closed a connection (its client went away with
    # requests pending): the broker leg then has responses the proxy never read.
    unread = leg == "broker leg" and "closed" in p and len(c["responses"]) > len(p["responses"])
    if len(p["responses"]) != len(c["responses"]) and not unread:
        problems.append(f"{leg}: proxy {key} has {len(p['responses'])} responses, stream "
                        f"{cid} ({c['client']} -> {c['server']}) {len(c['responses'])}")
    for i, (pf, cf) in enumerate(zip(p["responses"], c["responses"])):
        # The proxy logs a response as the broker sent it; the client got it rewritten.
        rewritten = leg == "client leg" and pf.get("rewritten", 0) > 0
        d = frame_diff(pf, cf, not rewritten)
        if d:
            problems.append(f"{leg}: proxy {key} response {i} / stream {cid}: {d}")
    return problems


def match(proxy, pcap, leg):
    """Pairs each proxy connection with a capture stream with the same request bytes;
    returns (matched pairs, unmatched proxy connections, unmatched streams, problems)."""
    with_bytes = all("frame" in f for p in proxy.values() for f in p["requests"])
    by_requests = collections.defaultdict(list)
    for cid, c in pcap.items():
        by_requests[requests_key(c["requests"], with_bytes)].append(cid)
    pairs, lost, problems = [], [], []
    for key, p in proxy.items():
        candidates = by_requests.get(requests_key(p["requests"], with_bytes), [])
        if not candidates:
            lost.append(key)
            continue
        # Connections with the same requests: the first whose responses agree too.
        found = [(cid, compare(key, p, pcap[cid], cid, leg)) for cid in candidates]
        cid, diffs = next((x for x in found if not x[1]), found[0])
        candidates.remove(cid)
        pairs.append((key, cid))
        problems += diffs
    extra = [cid for ids in by_requests.values() for cid in ids]
    return pairs, lost, extra, problems


def frames(conns):
    return sum(len(c["requests"]) + len(c["responses"]) for c in conns.values())


def tshark_compare(capture, ports, pcap_conns):
    """Wireshark's Kafka dissector against kwire pcap (client leg and broker leg)."""
    cmd = ["tshark", "-r", capture, "-n", "-Y", "kafka", "-T", "json", "-J", "tcp kafka",
           "--no-duplicate-keys"]
    for p in sorted(ports):
        cmd += ["-d", f"tcp.port=={p},kafka"]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        return [f"tshark failed: {r.stderr.strip()[:300]}"], collections.Counter(), 0, 0
    seen = {}  # (client port, server port, direction, correlation id) -> (api key, version)
    for pkt in json.loads(r.stdout or "[]"):
        layers = pkt["_source"]["layers"]
        tcp = layers.get("tcp", {})
        src, dst = int(tcp.get("tcp.srcport", 0)), int(tcp.get("tcp.dstport", 0))
        pdus = layers.get("kafka", [])
        if isinstance(pdus, dict):
            pdus = [pdus]
        for k in pdus:
            if "kafka.correlation_id" not in k:
                continue
            request = dst in ports
            client, server = (src, dst) if request else (dst, src)
            key = (client, server, "request" if request else "response",
                   int(k["kafka.correlation_id"]))
            # A response's key and version: generated from the request it matched.
            api_key = k.get("kafka.api_key", k.get("kafka.response_key"))
            version = k.get("kafka.api_version", k.get("kafka.response.version"))
            seen[key] = (int(api_key) if api_key is not None else None,
                         int(version) if version is not None else None)
    disagree, untyped, compared, missing = [], collections.Counter(), 0, 0
    for c in pcap_conns:
        for direction in ("requests", "responses"):
            for f in c[direction]:
                cport = int(c["client"].rsplit(":", 1)[1])
                sport = int(c["server"].rsplit(":", 1)[1])
                key = (cport, sport, f["direction"], f["correlation_id"])
                if key not in seen:
                    missing += 1
                    continue
                compared += 1
                ak, av = seen[key]
                if ak is None and f["direction"] == "response":
                    untyped[f.get("api")] += 1  # tshark did not pair it with its request
                elif (ak, av) != (f.get("api_key"), f.get("version")):
                    disagree.append(f"{f['direction']} {f.get('api')} (key {f.get('api_key')}) "
                                    f"v{f.get('version')} correlation id {f['correlation_id']} "
                                    f"{c['client']} -> {c['server']}: tshark reads key {ak} "
                                    f"v{av}")
    return disagree, untyped, compared, missing


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kwire", required=True)
    ap.add_argument("--capture", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--broker-ports", required=True)
    ap.add_argument("--tshark", action="store_true")
    a = ap.parse_args()
    proxy, proxy_ports = proxy_connections(a.out)
    broker_ports = {int(p) for p in a.broker_ports.split(",") if p}
    proxy_frames = frames(proxy)
    proxy_ok = all(f["verdict"] in ("ok", "refused", "opaque")
                   for c in proxy.values() for f in c["requests"] + c["responses"])
    failed = []

    rc, client, events, line = run_pcap(a.kwire, a.capture, a.out, "client", proxy_ports)
    pairs, lost, extra, problems = match(proxy, client, "client leg")
    print(f"pcap: client leg (ports {','.join(map(str, sorted(proxy_ports)))}): "
          f"{frames(client)} frames in {len(client)} streams, the proxies logged "
          f"{proxy_frames} in {len(proxy)} connections; {len(pairs)} matched; kwire pcap exit "
          f"{rc}; events {dict(events)}")
    print(f"pcap:   {line}")
    if lost or extra or problems or frames(client) != proxy_frames:
        failed.append("client leg")
    if (rc == 0) != proxy_ok:
        failed.append(f"client leg exit status {rc} (the proxies' frames "
                      f"{'all' if proxy_ok else 'not all'} conformed)")
    for x in problems[:20]:
        print("  " + x)
    for key in lost[:10]:
        print(f"  client leg: no stream with the requests of proxy connection {key}")
    for cid in extra[:10]:
        print(f"  client leg: stream {cid} {client[cid]['client']} -> {client[cid]['server']}"
              " is no proxy connection")

    with_bytes = all("frame" in f for p in proxy.values() for f in p["requests"])
    rc_b, broker, events_b, line_b = run_pcap(a.kwire, a.capture, a.out, "broker", broker_ports)
    pairs_b, lost_b, extra_b, problems_b = match(proxy, broker, "broker leg")
    unread = sum(len(broker[cid]["responses"]) - len(proxy[key]["responses"])
                 for key, cid in pairs_b)
    print(f"pcap: broker leg (ports {','.join(map(str, sorted(broker_ports)))}): "
          f"{frames(broker)} frames in {len(broker)} streams; {len(pairs_b)} of {len(proxy)} "
          f"proxy connections matched ({'bytes' if with_bytes else 'sizes'}); {len(extra_b)} other streams "
          f"({sum(len(broker[c]['requests']) + len(broker[c]['responses']) for c in extra_b)} "
          f"frames); {unread} responses the broker sent after the proxy had closed the connection "
          f"(its client gone); kwire pcap exit {rc_b}; events {dict(events_b)}")
    print(f"pcap:   {line_b}")
    if lost_b or problems_b:
        failed.append("broker leg")
    for x in problems_b[:20]:
        print("  " + x)
    for key in lost_b[:10]:
        print(f"  broker leg: no stream with the requests of proxy connection {key}")

    rc_g, guessed, events_g, line_g = run_pcap(a.kwire, a.capture, a.out, "guessed", [])
    with_bytes = all("frame" in f for p in proxy.values() for f in p["requests"])
    by_requests = collections.Counter(
        requests_key(c["requests"], with_bytes) for c in guessed.values())
    found_twice = sum(
        1 for p in proxy.values() if by_requests[requests_key(p["requests"], with_bytes)] >= 2)
    others = collections.Counter(c["server"] for c in guessed.values())
    for c in list(client.values()) + list(broker.values()):
        others[c["server"]] -= 1
    others = {k: v for k, v in others.items() if v > 0}
    print(f"pcap: guessed (no --port): {frames(guessed)} frames in {len(guessed)} streams; "
          f"{found_twice} of {len(proxy)} proxy connections found on both legs; other Kafka "
          f"streams by server: {others}; kwire pcap exit {rc_g}; events {dict(events_g)}")
    print(f"pcap:   {line_g}")

    if a.tshark:
        if shutil.which("tshark") is None:
            print("pcap: tshark not installed: no comparison with Wireshark's Kafka dissector")
        else:
            disagree, untyped, compared, missing = tshark_compare(
                a.capture, proxy_ports | broker_ports,
                list(client.values()) + list(broker.values()))
            print(f"pcap: tshark (Wireshark's Kafka dissector) on both legs: {compared} of "
                  f"kwire's frames dissected ({missing} not), "
                  f"{compared - len(disagree) - sum(untyped.values())} with the same API key, "
                  f"version and correlation id, {len(disagree)} read differently, "
                  f"{sum(untyped.values())} responses it leaves untyped (not paired with "
                  f"their request: {dict(untyped.most_common())})")
            for x in disagree[:40]:
                print("  tshark: " + x)
            if len(disagree) > 40:
                print(f"  tshark: ... and {len(disagree) - 40} more")

    if failed:
        print("pcap: kwire pcap and kwire proxy disagree: " + ", ".join(failed))
        return 1
    print(f"pcap: kwire pcap agrees with kwire proxy: {proxy_frames} frames, "
          f"{len(proxy)} connections, on both legs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
