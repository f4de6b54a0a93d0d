#!/usr/bin/env python3
"""Time to first token of an OpenAI-compatible server by how long it had been idle.

One client, one keep-alive connection, streaming chat completions: after each answer the
client waits (spinning, so that its own wake-up is not measured) for a given gap, then asks
again and times the request's send to the answer's first `data:` event. Gaps are measured in
rotation, so that a drift of the machine touches every gap alike.
Usage: idle-ttft.py PORT GAPS_US COUNT [TOKENS [WARM]]
  GAPS_US  comma-separated waits in microseconds (0,200,500,1000,3000,20000)
  COUNT    requests per gap; TOKENS output tokens per request (default 1; with 2 and the
           engine's itl, the engine idles that long with the stream still open);
  WARM     unmeasured requests first (default 200)
Prints one line: gap:p50 in microseconds for every gap.
"""
import socket
import statistics
import sys
import time


def main(port, gaps, count, tokens, warm):
    body = (b'{"model":"sluice-sim","messages":[{"role":"user","content":"hello there"}],'
            b'"max_tokens":%d,"stream":true}' % tokens)
    request = (b'POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n'
               b'Content-Type: application/json\r\nContent-Length: %d\r\n\r\n' % len(body)) + body
    connection = socket.create_connection(('127.0.0.1', port))
    connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def ttft_us():
        sent = time.perf_counter()
        connection.sendall(request)
        answer, first = b'', None
        while not answer.endswith(b'0\r\n\r\n'):
            data = connection.recv(65536)
            if not data:
                sys.exit('the server closed the connection')
            if first is None and b'data:' in data:
                first = time.perf_counter()
            answer += data
        if not answer.startswith(b'HTTP/1.1 200'):
            sys.exit('the server answered: ' + answer[:200].decode('latin-1'))
        return (first - sent) * 1e6

    for _ in range(warm):
        ttft_us()
    measured = {gap: [] for gap in gaps}
    for _ in range(count):
        for gap in gaps:
            until = time.perf_counter() + gap / 1e6
            while time.perf_counter() < until:
                pass
            measured[gap].append(ttft_us())
    print(' '.join('%d:%.0f' % (gap, statistics.median(values))
                   for gap, values in measured.items()))


if __name__ == '__main__':
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    main(int(sys.argv[1]), [int(g) for g in sys.argv[2].split(',')], int(sys.argv[3]),
         int(sys.argv[4]) if len(sys.argv) > 4 else 1,
         int(sys.argv[5]) if len(sys.argv) > 5 else 200)
