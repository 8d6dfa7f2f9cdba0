#!/usr/bin/env bash
# Runs the README's command-line examples ("Three things to try", 2 and 3) as written,
# from the clone with nothing added to PATH, and checks what each one makes:
#   2. a busy python3, then `build/release/app/gilscope attach $! -d 5 --flamegraph -o flame.html`: the page;
#   3. `build/release/app/gilscope agent --push http://localhost:4040` for 14 s (its pushes come every 10 s)
#      against a stand-in Pyroscope on that port: at least one push of a profile.
# scripts/check-fresh-machine.sh runs it on a bare Debian 12 after scripts/run.sh.
#
#   scripts/lib/readme-examples.sh [SOURCE_DIR]
set -euo pipefail

src=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
[[ -x "$src/build/release/app/gilscope" ]] || { echo "error: no gilscope under $src/build/release/app"; exit 1; }
# The examples run "from the clone", as a newcomer pastes them (nothing on PATH): a
# scratch folder whose build/ is the clone's, so their outputs stay out of the clone.
work=$(mktemp -d)
ln -s "$src/build" "$work/build"
pids=()
cleanup() {
    local p
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

# The shell block under "**N." in the README.
example() {
    awk -v n="**$1." 'index($0, n) == 1 { on = 1; next }
        on && /^\*\*[0-9]+\./ { exit }
        on && /^```sh/ { code = 1; next }
        on && code && /^```/ { exit }
        code { print }' "$src/README.md"
}

cd "$work"
two=$(example 2)
[[ -n "$two" ]] || { echo "error: the README has no example 2"; exit 1; }
echo "example 2:"
echo "$two"
# The block starts a python3 in the background: the same shell stops it as it ends.
bash -euo pipefail -c $'trap \'kill $! 2>/dev/null || true\' EXIT\n'"$two"
[[ -s flame.html ]] || { echo "error: example 2 wrote no flame.html"; exit 1; }
grep -q '<html' flame.html || { echo "error: flame.html is not an HTML page"; exit 1; }
echo "example 2: flame.html, $(wc -c <flame.html) bytes"

three=$(example 3)
[[ -n "$three" ]] || { echo "error: the README has no example 3"; exit 1; }
echo "example 3:"
echo "$three"
# A stand-in for Pyroscope: takes every POST on port 4040 of 127.0.0.1 and ::1 (either
# may be the first "localhost"), and notes its path and size.
python3 - "$work/pushes" <<'PY' &
import http.server, socket, sys, threading
log = sys.argv[1]
class Take(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        with open(log, "a") as f:
            f.write(f"{self.path} {len(body)}\n")
        self.send_response(200)
        self.end_headers()
    def log_message(self, *args):
        pass
class Six(http.server.HTTPServer):
    address_family = socket.AF_INET6
servers = [http.server.HTTPServer(("127.0.0.1", 4040), Take)]
try:
    servers.append(Six(("::1", 4040), Take))
except OSError:  # no IPv6 loopback here
    pass
for s in servers[1:]:
    threading.Thread(target=s.serve_forever, daemon=True).start()
servers[0].serve_forever()
PY
pids+=($!)
python3 -c 'while True: sum(range(1000))' &
pids+=($!)
sleep 1
status=0
timeout -s INT 14 bash -euo pipefail -c "$three" || status=$?
[[ $status -eq 0 || $status -eq 124 || $status -eq 130 ]] ||
    { echo "error: example 3 exited with $status"; exit 1; }
grep -q '^/push.v1.PusherService/Push [1-9]' "$work/pushes" 2>/dev/null ||
    { echo "error: example 3 pushed nothing to localhost:4040"; exit 1; }
echo "example 3: $(wc -l <"$work/pushes") push(es) to localhost:4040"
