#!/usr/bin/env python3
"""A small S3-compatible object server for the data cache tests (a test tool,
not part of tfhost).

Serves ROOT/<bucket>/<key> over path-style URLs on loopback:
  PUT /bucket/key, GET /bucket/key, HEAD /bucket/key,
  GET with "Range: bytes=N-" (206 with Content-Range; 416 past the end) and
  "If-Match: ETAG" (412 when the object's ETag differs),
  GET /bucket?list-type=2&prefix=P[&continuation-token=T][&max-keys=N]  (ListObjectsV2)
Every request must carry an AWS SigV4 Authorization header whose credential
scope is <access-key>/<date>/<region>/s3/aws4_request, which signs host and
x-amz-date, and whose signature verifies with --secret-key (canonical request
as S3 computes it: path as sent, sorted query, signed headers, the
x-amz-content-sha256 value); otherwise 403 with an S3 error document.
ETags are the MD5 of the content in quotes, as S3 gives for single-part objects.

Test hooks:
  --die-after-bytes N  during the first GET of an object larger than N, send
                       N body bytes and kill the whole process (os._exit), as
                       a server that dies mid-download
  --max-keys N         page size of listings (to exercise continuation)
  --port-file F        where the bound port is written (port 0 = any free one)
  --request-log F      appends "METHOD key range" for each object GET/HEAD
"""
import argparse
import hashlib
import hmac
import html
import os
import re
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ARGS = None
STATS_LOCK = threading.Lock()

AUTH_RE = re.compile(
    r"^AWS4-HMAC-SHA256 Credential=([^/]+)/(\d{8})/([^/]+)/s3/aws4_request, ?"
    r"SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$")


def obj_path(bucket, key):
    root = os.path.realpath(ARGS.root)
    p = os.path.realpath(os.path.join(root, bucket, key))
    if not p.startswith(root + os.sep):
        return None
    return p


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        if ARGS.verbose:
            sys.stderr.write("s3_server: " + (fmt % args) + "\n")

    def error(self, status, code, message=""):
        body = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>%s</Code><Message>%s</Message></Error>"
                % (code, html.escape(message))).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def authorized(self):
        auth = self.headers.get("Authorization", "")
        m = AUTH_RE.match(auth)
        if not m:
            self.error(403, "AccessDenied", "missing or malformed SigV4 Authorization header")
            return False
        key, date, region, signed, _ = m.groups()
        if key != ARGS.access_key:
            self.error(403, "InvalidAccessKeyId", "unknown access key " + key)
            return False
        if region != ARGS.region:
            self.error(400, "AuthorizationHeaderMalformed", "region " + region + " should be " + ARGS.region)
            return False
        amz_date = self.headers.get("x-amz-date", "")
        names = signed.split(";")
        if "x-amz-date" not in names or "host" not in names or not amz_date.startswith(date):
            self.error(403, "AccessDenied", "host/x-amz-date missing, unsigned or not matching the scope date")
            return False
        if m.group(5) != self.signature(names, amz_date, date):
            self.error(403, "SignatureDoesNotMatch", "the request signature does not verify")
            return False
        return True

    def signature(self, names, amz_date, date):
        u = urllib.parse.urlsplit(self.path)
        pairs = urllib.parse.parse_qsl(u.query, keep_blank_values=True)
        enc = lambda x: urllib.parse.quote(x, safe="-_.~")
        query = "&".join("%s=%s" % (enc(k), enc(v)) for k, v in sorted(pairs))
        headers = "".join("%s:%s\n" % (n, " ".join((self.headers.get(n) or "").split())) for n in names)
        payload = self.headers.get("x-amz-content-sha256") or "UNSIGNED-PAYLOAD"
        canonical = "\n".join([self.command, u.path or "/", query, headers, ";".join(names), payload])
        scope = "%s/%s/s3/aws4_request" % (date, ARGS.region)
        to_sign = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope, hashlib.sha256(canonical.encode()).hexdigest()])
        k = ("AWS4" + ARGS.secret_key).encode()
        for part in (date, ARGS.region, "s3", "aws4_request"):
            k = hmac.new(k, part.encode(), hashlib.sha256).digest()
        return hmac.new(k, to_sign.encode(), hashlib.sha256).hexdigest()

    def split(self):
        u = urllib.parse.urlsplit(self.path)
        parts = urllib.parse.unquote(u.path).lstrip("/").split("/", 1)
        bucket = parts[0]
        key = parts[1] if len(parts) > 1 else ""
        return bucket, key, urllib.parse.parse_qs(u.query, keep_blank_values=True)

    def do_PUT(self):
        if not self.authorized():
            return
        bucket, key, _ = self.split()
        n = int(self.headers.get("Content-Length", "0"))
        data = self.rfile.read(n)
        p = obj_path(bucket, key)
        if not key or p is None:
            return self.error(400, "InvalidRequest", "bad key")
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p + ".tmp", "wb") as f:
            f.write(data)
        os.replace(p + ".tmp", p)
        self.send_response(200)
        self.send_header("ETag", '"%s"' % hashlib.md5(data).hexdigest())
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_HEAD(self):
        self.get_or_head(head=True)

    def do_GET(self):
        self.get_or_head(head=False)

    def get_or_head(self, head):
        if not self.authorized():
            return
        bucket, key, query = self.split()
        if not os.path.isdir(os.path.join(ARGS.root, bucket)):
            return self.error(404, "NoSuchBucket", bucket)
        if not key:
            if head:
                return self.error(400, "InvalidRequest", "HEAD on a bucket")
            if query.get("list-type", [""])[0] != "2":
                return self.error(400, "InvalidRequest", "only ListObjectsV2 (list-type=2) is served")
            return self.list(bucket, query)
        p = obj_path(bucket, key)
        if p is None or not os.path.isfile(p):
            return self.error(404, "NoSuchKey", key)
        with open(p, "rb") as f:
            data = f.read()
        etag = '"%s"' % hashlib.md5(data).hexdigest()
        rng = self.headers.get("Range", "")
        if ARGS.request_log:
            with STATS_LOCK, open(ARGS.request_log, "a") as f:
                f.write("%s %s %s\n" % (self.command, key, rng or "-"))
        if_match = self.headers.get("If-Match")
        if if_match is not None and if_match != etag:
            return self.error(412, "PreconditionFailed", "ETag is " + etag)
        status, first = 200, 0
        if rng and not head:
            m = re.match(r"^bytes=(\d+)-$", rng)
            if not m:
                return self.error(400, "InvalidRange", "only bytes=N- is served")
            first = int(m.group(1))
            if first >= len(data):
                return self.error(416, "InvalidRange", "range starts past the end")
            status = 206
        self.send_response(status)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(data) - first))
        self.send_header("ETag", etag)
        if status == 206:
            self.send_header("Content-Range", "bytes %d-%d/%d" % (first, len(data) - 1, len(data)))
        self.end_headers()
        if head:
            return
        data = data[first:]
        if ARGS.die_after_bytes is not None and len(data) > ARGS.die_after_bytes:
            self.wfile.write(data[:ARGS.die_after_bytes])
            self.wfile.flush()
            os._exit(3)
        self.wfile.write(data)

    def list(self, bucket, query):
        prefix = query.get("prefix", [""])[0]
        token = query.get("continuation-token", [""])[0]
        max_keys = min(int(query.get("max-keys", ["1000"])[0]), ARGS.max_keys)
        broot = os.path.join(ARGS.root, bucket)
        keys = []
        for dirpath, _, files in os.walk(broot):
            for name in files:
                if name.endswith(".tmp"):
                    continue
                k = os.path.relpath(os.path.join(dirpath, name), broot).replace(os.sep, "/")
                if k.startswith(prefix) and (not token or k > token):
                    keys.append(k)
        keys.sort()
        page, rest = keys[:max_keys], keys[max_keys:]
        out = ['<?xml version="1.0" encoding="UTF-8"?>',
               '<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">',
               "<Name>%s</Name><Prefix>%s</Prefix><KeyCount>%d</KeyCount><MaxKeys>%d</MaxKeys>"
               % (html.escape(bucket), html.escape(prefix), len(page), max_keys),
               "<IsTruncated>%s</IsTruncated>" % ("true" if rest else "false")]
        if rest:
            out.append("<NextContinuationToken>%s</NextContinuationToken>" % html.escape(page[-1]))
        for k in page:
            with open(os.path.join(broot, k), "rb") as f:
                data = f.read()
            out.append("<Contents><Key>%s</Key><LastModified>2026-01-01T00:00:00.000Z</LastModified>"
                       "<ETag>&quot;%s&quot;</ETag><Size>%d</Size><StorageClass>STANDARD</StorageClass></Contents>"
                       % (html.escape(k), hashlib.md5(data).hexdigest(), len(data)))
        out.append("</ListBucketResult>")
        body = "".join(out).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def main():
    global ARGS
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file")
    ap.add_argument("--region", default="us-east-1")
    ap.add_argument("--access-key", default="testkey")
    ap.add_argument("--secret-key", default="secret")
    ap.add_argument("--die-after-bytes", type=int)
    ap.add_argument("--max-keys", type=int, default=1000)
    ap.add_argument("--request-log")
    ap.add_argument("--verbose", action="store_true")
    ARGS = ap.parse_args()
    srv = ThreadingHTTPServer(("127.0.0.1", ARGS.port), Handler)
    srv.daemon_threads = True
    if ARGS.port_file:
        with open(ARGS.port_file + ".tmp", "w") as f:
            f.write(str(srv.server_address[1]))
        os.replace(ARGS.port_file + ".tmp", ARGS.port_file)
    srv.serve_forever()


if __name__ == "__main__":
    main()
