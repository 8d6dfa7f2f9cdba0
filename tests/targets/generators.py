"""Standard-library generator code in a loop, on the main thread.

difflib's generator expressions and email's generator-based FeedParser suspend and
resume generator frames all the time: a reader that reads a generator frame after it
was suspended sees its chain end there, a stack rooted at the generator instead of
<module>.
READY json: {}
"""
import difflib
from email.feedparser import FeedParser

from _ready import ready


def multipart_message():
    parts = []
    for i in range(8):
        parts.append(
            "--BOUNDARY\r\nContent-Type: text/plain; charset=utf-8\r\n"
            "Content-Disposition: attachment; filename=\"part%d.txt\"\r\n\r\n" % i
            + "".join("line %d of part %d\r\n" % (j, i) for j in range(20)))
    return ("From: a@example.com\r\nTo: b@example.com\r\nSubject: test\r\n"
            "MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"BOUNDARY\"\r\n\r\n"
            + "".join(parts) + "--BOUNDARY--\r\n")


MESSAGE = multipart_message()
OLD = ["word %d %s\n" % (i, "x" * (i % 7)) for i in range(60)]
NEW = [line.replace("3", "4") for line in OLD]


def parse():
    parser = FeedParser()
    for i in range(0, len(MESSAGE), 97):  # fed in pieces: the parser resumes its generators
        parser.feed(MESSAGE[i:i + 97])
    return parser.close()


def compare():
    matcher = difflib.SequenceMatcher(None, OLD, NEW)
    return matcher.ratio(), sum(1 for _ in difflib.unified_diff(OLD, NEW))


ready()
while True:
    parse()
    compare()
