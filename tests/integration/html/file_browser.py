"""A stand-in for the web browser of --browser with an HTML output: writes the address it
was given, then the first bytes of the file it names, to OUT.

Usage: file_browser.py OUT URL
"""
import os
import sys
import urllib.parse

out, url = sys.argv[1], sys.argv[2]
path = urllib.parse.unquote(urllib.parse.urlparse(url).path)
with open(path, "rb") as f:
    head = f.read(4096)
with open(out + ".tmp", "wb") as f:
    f.write(url.encode() + b"\n" + head)
os.replace(out + ".tmp", out)
