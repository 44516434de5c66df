#!/usr/bin/env python3
"""Ask a Kafka listener for its ApiVersions (v0) and say whether it answered.

  apiversions.py HOST:PORT [--timeout SECONDS] [--list]

Exit status 0 when the listener answered ApiVersions v0 with error_code 0 and at least one
API; 1 otherwise (refused, closed, timed out, an error code). --list prints the table, one
"key min max" line an API. v0 (request header v1, no tagged fields) is the version every
broker answers, and a SASL listener answers it before authentication (KIP-35, KIP-43), so
the same probe serves PLAINTEXT and SASL_PLAINTEXT listeners. Used by broker.sh to wait for
a broker it started; no third-party module, no Kafka client.
"""
import argparse
import socket
import struct
import sys


def api_versions(host, port, timeout):
    client_id = b"kwire-broker-probe"
    # Request header v1: api_key=18 (ApiVersions), api_version=0, correlation_id, client_id.
    body = struct.pack(">hhih", 18, 0, 0x6B77, len(client_id)) + client_id
    with socket.create_connection((host, port), timeout=timeout) as s:
        s.settimeout(timeout)
        s.sendall(struct.pack(">i", len(body)) + body)

        def read(n):
            buf = b""
            while len(buf) < n:
                chunk = s.recv(n - len(buf))
                if not chunk:
                    raise ConnectionError("connection closed after %d of %d bytes" % (len(buf), n))
                buf += chunk
            return buf

        (size,) = struct.unpack(">i", read(4))
        if size < 10 or size > 1 << 20:
            raise ValueError("response size %d" % size)
        resp = read(size)
    corr, error, count = struct.unpack_from(">ihi", resp, 0)
    if corr != 0x6B77:
        raise ValueError("correlation id %d" % corr)
    if error != 0:
        raise ValueError("error_code %d" % error)
    if count <= 0 or 10 + 6 * count > len(resp):
        raise ValueError("%d APIs in %d bytes" % (count, len(resp)))
    return [struct.unpack_from(">hhh", resp, 10 + 6 * i) for i in range(count)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("address", help="HOST:PORT")
    ap.add_argument("--timeout", type=float, default=2.0)
    ap.add_argument("--list", action="store_true", help="print 'key min max' per API")
    args = ap.parse_args()
    host, _, port = args.address.rpartition(":")
    try:
        apis = api_versions(host or "127.0.0.1", int(port), args.timeout)
    except (OSError, ValueError, struct.error) as e:
        print("apiversions.py: %s: %s" % (args.address, e), file=sys.stderr)
        return 1
    if args.list:
        for key, lo, hi in sorted(apis):
            print(key, lo, hi)
    return 0


if __name__ == "__main__":
    sys.exit(main())
