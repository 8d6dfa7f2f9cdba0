"""A stand-in for the web browser: gets the /from-url/ address gilscope opens, fetches
the profile the way the Firefox Profiler page does (with its Origin), and writes what it
got to OUT: the CORS header on the first line, then the body.

Usage: fake_browser.py OUT URL
"""
import sys
import urllib.parse
import urllib.request

out, url = sys.argv[1], sys.argv[2]
marker = "/from-url/"
origin = url[: url.index(marker)]
served = urllib.parse.unquote(url[url.index(marker) + len(marker):])
request = urllib.request.Request(served, headers={"Origin": origin})
with urllib.request.urlopen(request, timeout=30) as reply:
    body = reply.read()
    cors = reply.headers.get("Access-Control-Allow-Origin", "")
with open(out + ".tmp", "wb") as f:
    f.write(cors.encode() + b"\n" + body)
import os
os.replace(out + ".tmp", out)
