#!/usr/bin/env python3
"""Where a request's time to first token goes, from a loopback packet capture.

Reads a pcap written by `CAPTURE=file.pcap docs/bench/engine-path.sh` (tcpdump on lo: the
engine's port, the ingress's splice and the plain HAProxy) and prints, per way of reaching the
engine (directly, through the splice, through HAProxy), p50/p90 in microseconds of:
  wire TTFT       the client's request head -> the answer's first event (`data:`), at the
                  port the client talks to (no client time in it; at ttft 0 the engine sends
                  its first token with the role event)
  request leg     the request's last packet at the proxy -> the request at the engine
  engine turn     the request at the engine -> the engine's first bytes of answer
  answer leg      the engine's first bytes -> the proxy's first bytes to the client
  end leg         the engine's last bytes ([DONE]) -> the proxy's last bytes to the client
  client turn     the client's last byte of one answer -> its next request, same connection
and the engine's turnaround by how long the engine connection had been quiet before the
request came (the time since its previous answer ended).

Requests are told apart by their head at the engine: the splice sends `host: <engine>` in
lower case, HAProxy passes the client's `host: <haproxy port>`, the load generator sends
`Host:`; the relayed path's (`X-Request-Id`) are left out. Answers are matched across the proxy by their `chatcmpl-<id>`, requests by their
prompt text.
Usage: turnaround.py capture.pcap ENGINE_PORT SPLICE_PORT HAPROXY_PORT
"""
import collections
import re
import statistics
import struct
import sys


def packets(path):
    """(time, source port, destination port, TCP payload) of every TCP/IPv4 packet."""
    with open(path, 'rb') as f:
        header = f.read(24)
        magic = struct.unpack('<I', header[:4])[0]
        scale = 1e9 if magic == 0xa1b23c4d else 1e6
        link = struct.unpack('<I', header[20:24])[0]
        skip = {1: 14, 113: 16, 276: 20}[link]
        while True:
            record = f.read(16)
            if len(record) < 16:
                return
            sec, frac, captured, _ = struct.unpack('<IIII', record)
            data = f.read(captured)
            ip = data[skip:]
            if not ip or ip[0] >> 4 != 4 or ip[9] != 6:
                continue
            tcp = ip[(ip[0] & 15) * 4:]
            source, destination = struct.unpack('>HH', tcp[:4])
            yield sec + frac / scale, source, destination, tcp[(tcp[12] >> 4) * 4:]


def prompt(payload):
    at = payload.find(b'"content":"')
    return payload[at:at + 80] if at >= 0 else None


ANSWER_ID = re.compile(rb'"id":"((?:chat)?cmpl-[0-9a-f-]+)"')


def answer_id(payload):
    match = ANSWER_ID.search(payload)
    return match.group(1) if match else None


def summary(values):
    if not values:
        return '-'
    values = sorted(values)
    return 'n=%d p50 %.0f p90 %.0f' % (len(values), values[len(values) // 2],
                                        values[len(values) * 9 // 10])


def main(path, engine, splice, haproxy):
    fronts = {engine: 'engine', splice: 'splice', haproxy: 'haproxy'}
    figures = collections.defaultdict(lambda: collections.defaultdict(list))
    by_gap = collections.defaultdict(list)
    asked = {}         # (front port, client port) -> (time, way): a request waiting for a token
    at_engine = {}     # engine-side client port -> (time, way, quiet gap)
    engine_ended = {}  # engine-side client port -> when its last answer ended
    sent = {}          # prompt -> when its last packet reached the proxy
    first_bytes = {}   # answer id -> when the engine sent its first bytes
    last_bytes = {}    # answer id -> when the engine sent [DONE]
    front_ended = {}   # (front port, client port) -> when the proxy sent the answer's end
    for time, source, destination, payload in packets(path):
        if not payload:
            continue
        if destination == engine and payload.startswith(b'POST'):
            if b'X-Request-Id' in payload:
                continue  # the relayed path's replica endpoint
            if b'Host: ' in payload:
                way = 'engine'
            elif b':%d\r\n' % haproxy in payload:
                way = 'haproxy'
            else:
                way = 'splice'
            gap = engine_ended.get(source)
            at_engine[source] = (time, way, None if gap is None else (time - gap) * 1e6)
            key = prompt(payload)
            if way != 'engine' and key in sent:
                figures[way]['request leg'].append((time - sent.pop(key)) * 1e6)
        direct = (destination == engine and payload.startswith(b'POST')
                  and b'Host: ' in payload and b'X-Request-Id' not in payload)
        if destination in fronts and destination != engine or direct:
            way = fronts[destination]
            connection = (destination, source)
            if payload.startswith(b'POST'):
                asked[connection] = (time, way)
                if connection in front_ended:
                    figures[way]['client turn'].append((time - front_ended.pop(connection)) * 1e6)
            key = prompt(payload)
            if key and destination != engine:
                sent[key] = time
        if source == engine:
            ident = answer_id(payload)
            if destination in at_engine and b'data:' in payload:
                start, way, gap = at_engine.pop(destination)
                figures[way]['engine turn'].append((time - start) * 1e6)
                if gap is not None:
                    by_gap[way].append((gap, (time - start) * 1e6))
                if ident:
                    first_bytes[ident] = time
            if b'[DONE]' in payload and ident:
                last_bytes[ident] = time
            if payload.endswith(b'0\r\n\r\n'):
                engine_ended[destination] = time
        if source in fronts:
            way = fronts[source]
            connection = (source, destination)
            ident = answer_id(payload)
            if connection in asked and b'data:' in payload:
                start, _ = asked.pop(connection)
                figures[way]['wire TTFT'].append((time - start) * 1e6)
            if source != engine and ident in first_bytes:
                figures[way]['answer leg'].append((time - first_bytes.pop(ident)) * 1e6)
            if source != engine and b'[DONE]' in payload and ident in last_bytes:
                figures[way]['end leg'].append((time - last_bytes.pop(ident)) * 1e6)
            if payload.endswith(b'0\r\n\r\n'):
                front_ended[connection] = time
    for way in ('engine', 'splice', 'haproxy'):
        print(way)
        for name in ('wire TTFT', 'request leg', 'engine turn', 'answer leg', 'end leg',
                     'client turn'):
            if figures[way][name]:
                print('  %-12s %s' % (name, summary(figures[way][name])))
    print('\nengine turnaround (p50 us) by how long its connection had been quiet')
    bounds = [0, 150, 250, 400, 700, 1500, 10**9]
    print('  %-10s' % 'quiet us' + ''.join('%16s' % w for w in ('engine', 'splice', 'haproxy')))
    for low, high in zip(bounds, bounds[1:]):
        cells = []
        for way in ('engine', 'splice', 'haproxy'):
            turns = sorted(t for g, t in by_gap[way] if low <= g < high)
            cells.append('%5.0f (n=%4d)' % (turns[len(turns) // 2], len(turns)) if turns
                         else '-')
        label = '%d-%s' % (low, high if high < 10**9 else '')
        print('  %-10s' % label + ''.join('%16s' % c for c in cells))


if __name__ == '__main__':
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    main(sys.argv[1], *map(int, sys.argv[2:]))
