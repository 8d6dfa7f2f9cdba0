"""A service at rest with N connections (default 100): one thread per connection blocked
in recv on a loopback socket whose peer never writes, as a pool of database clients.
READY json: {"connections": N}
"""
import os
import socket
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "targets"))
from _ready import ready  # noqa: E402

N = int(sys.argv[1]) if len(sys.argv) > 1 else 100
listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(N)
peers = []


def client(i):
    s = socket.create_connection(listener.getsockname())
    peers.append(listener.accept()[0])
    s.recv(16)  # never answered


threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(N)]
for t in threads:
    t.start()
while len(peers) < N:
    threading.Event().wait(0.01)
ready(connections=N)
threading.Event().wait()
