#!/usr/bin/env python3
"""`tfhost serve --ssl_config_file` end to end with real clients. Every key
and certificate is made here, at test time, with the openssl command (a CA,
a server certificate for localhost / 127.0.0.1, a client certificate, a
client certificate from another CA, and an expired server certificate);
none is committed.

  without client_verify   curl over HTTPS (trusting the CA) predicts; plain
                          HTTP gets no answer; Python grpc with TLS
                          credentials predicts, an insecure channel fails;
                          openssl s_client verifies both ports' certificate
  with client_verify      curl / grpc / s_client without a client
                          certificate, or with one from another CA, are
                          refused; with the client certificate they work
  bad configurations      an expired certificate, a certificate that is not
                          PEM, a key of another certificate: the server
                          exits at start with an error naming the file

Run it with the project's Python: scripts/py tls_check.py --tfhost BINARY
"""
import argparse
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import grpc  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow_serving.apis import predict_pb2, prediction_service_pb2_grpc  # noqa: E402

FAILURES = []
ENV = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL: " + what, file=sys.stderr, flush=True)
    return cond


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=ENV, **kw)


def openssl(d, *args):
    r = run(["openssl"] + list(args), cwd=d)
    if r.returncode != 0:
        raise RuntimeError("openssl %s: %s" % (" ".join(args), r.stderr))


def make_pki(d):
    """CA, server, client, stranger (another CA's client) and expired server certificates."""
    with open(os.path.join(d, "server.ext"), "w") as f:
        f.write("basicConstraints=CA:FALSE\nsubjectAltName=DNS:localhost,IP:127.0.0.1\n"
                "extendedKeyUsage=serverAuth\n")
    with open(os.path.join(d, "client.ext"), "w") as f:
        f.write("basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n")
    for ca in ("ca", "stranger_ca"):
        openssl(d, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", ca + ".key", "-out", ca + ".pem",
                "-days", "2", "-subj", "/CN=tfhost test " + ca, "-addext", "basicConstraints=critical,CA:TRUE",
                "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    for name, ca, ext in (("server", "ca", "server.ext"), ("client", "ca", "client.ext"),
                          ("stranger", "stranger_ca", "client.ext")):
        openssl(d, "req", "-newkey", "rsa:2048", "-nodes", "-keyout", name + ".key", "-out", name + ".csr",
                "-subj", "/CN=" + ("localhost" if name == "server" else name))
        openssl(d, "x509", "-req", "-in", name + ".csr", "-CA", ca + ".pem", "-CAkey", ca + ".key",
                "-CAcreateserial", "-days", "2", "-extfile", ext, "-out", name + ".pem")
    # An expired certificate: `openssl ca` takes explicit dates.
    os.makedirs(os.path.join(d, "newcerts"))
    open(os.path.join(d, "index.txt"), "w").close()
    with open(os.path.join(d, "serial"), "w") as f:
        f.write("1000\n")
    with open(os.path.join(d, "ca.cnf"), "w") as f:
        f.write("[ca]\ndefault_ca=d\n[d]\ndir=.\ndatabase=index.txt\nnew_certs_dir=newcerts\nserial=serial\n"
                "default_md=sha256\npolicy=p\n[p]\ncommonName=supplied\n")
    openssl(d, "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "expired.key", "-out", "expired.csr",
            "-subj", "/CN=localhost")
    openssl(d, "ca", "-batch", "-config", "ca.cnf", "-cert", "ca.pem", "-keyfile", "ca.key", "-in", "expired.csr",
            "-out", "expired.pem", "-startdate", "20200101000000Z", "-enddate", "20200102000000Z", "-notext")


def read(d, name):
    with open(os.path.join(d, name)) as f:
        return f.read()


def ssl_config(d, path, key="server.key", cert="server.pem", client_verify=False, cert_text=None):
    with open(path, "w") as f:
        f.write("server_key: %s\nserver_cert: %s\ncustom_ca: %s\nclient_verify: %s\n" % (
            json.dumps(read(d, key)), json.dumps(cert_text if cert_text is not None else read(d, cert)),
            json.dumps(read(d, "ca.pem")), "true" if client_verify else "false"))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, tfhost, work, model, config):
        self.rest, self.grpc = free_port(), free_port()
        self.log_path = os.path.join(work, "serve-%d.log" % self.rest)
        self.proc = subprocess.Popen(
            [tfhost, "serve", "--model_name=hp2", "--model_base_path=" + model, "--ssl_config_file=" + config,
             "--rest_api_address=127.0.0.1", "--rest_api_port=%d" % self.rest,
             "--grpc_address=127.0.0.1", "--port=%d" % self.grpc], stdout=open(self.log_path, "w"),
            stderr=subprocess.STDOUT, env=ENV)
        deadline = time.time() + 60
        while time.time() < deadline and self.proc.poll() is None:
            if "REST API listening on https://" in read(work, os.path.basename(self.log_path)):
                return
            time.sleep(0.1)
        raise RuntimeError("tfhost serve did not start:\n" + read(work, os.path.basename(self.log_path)))

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=60)


def curl(d, url, *extra):
    return run(["curl", "-sS", "--max-time", "20", "--cacert", os.path.join(d, "ca.pem"), "-d",
                '{"instances": [[1.0], [2.0]]}', url] + list(extra))


def grpc_predict(d, port, client=None, secure=True):
    if secure:
        creds = grpc.ssl_channel_credentials(
            root_certificates=read(d, "ca.pem").encode(),
            private_key=read(d, client + ".key").encode() if client else None,
            certificate_chain=read(d, client + ".pem").encode() if client else None)
        channel = grpc.secure_channel("localhost:%d" % port, creds)
    else:
        channel = grpc.insecure_channel("127.0.0.1:%d" % port)
    with channel:
        req = predict_pb2.PredictRequest()
        req.model_spec.name = "hp2"
        req.inputs["x"].CopyFrom(tf.make_tensor_proto(np.array([[4.0]], np.float32)))
        try:
            resp = prediction_service_pb2_grpc.PredictionServiceStub(channel).Predict(req, timeout=20)
            return tf.make_ndarray(resp.outputs["y"]).tolist()
        except grpc.RpcError as e:
            return e.code()


def s_client(d, port, client=None, request=b""):
    cmd = ["openssl", "s_client", "-connect", "127.0.0.1:%d" % port, "-servername", "localhost",
           "-CAfile", os.path.join(d, "ca.pem"), "-verify_return_error"]
    if request:
        cmd.append("-ign_eof")  # wait for the answer; the server closes after it (Connection: close)
    if client:
        cmd += ["-cert", os.path.join(d, client + ".pem"), "-key", os.path.join(d, client + ".key")]
    r = subprocess.run(cmd, input=request, capture_output=True, timeout=60, env=ENV)
    return r.returncode, r.stdout.decode(errors="replace") + r.stderr.decode(errors="replace")


HTTP_GET = b"GET /v1/models/hp2 HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"


def check_server_tls(d, s):
    r = curl(d, "https://localhost:%d/v1/models/hp2:predict" % s.rest)
    check(r.returncode == 0 and json.loads(r.stdout or "{}").get("predictions") == [[2.5], [3.0]],
          "curl over HTTPS predicts: %s %s" % (r.stdout, r.stderr))
    r = curl(d, "http://127.0.0.1:%d/v1/models/hp2:predict" % s.rest)
    check(r.returncode != 0 and "predictions" not in r.stdout, "plain HTTP to the HTTPS port gets no answer")
    check(grpc_predict(d, s.grpc) == [[4.0]], "Python grpc over TLS predicts")
    check(grpc_predict(d, s.grpc, secure=False) == grpc.StatusCode.UNAVAILABLE, "an insecure gRPC channel fails")
    for port in (s.rest, s.grpc):
        # gRPC closes without TLS close_notify, which s_client reports as an
        # error after a verified handshake: the verdict is the verify code.
        rc, text = s_client(d, port)
        check((rc == 0 or port == s.grpc) and "Verify return code: 0 (ok)" in text and "s:CN = localhost" in text,
              "openssl s_client verifies the certificate on port %d (rc %d):\n%s" % (port, rc, text[-700:]))
    rc, text = s_client(d, s.rest, request=HTTP_GET)
    check("HTTP/1.1 200 OK" in text and '"state": "AVAILABLE"' in text, "a GET through s_client:\n" + text[-2000:])
    # After "Connection: close" the server ends TLS with close_notify, not a bare TCP close.
    check(rc == 0 and "unexpected eof" not in text, "the HTTPS server closes with close_notify:\n" + text[-2000:])


def check_client_verify(d, s):
    url = "https://localhost:%d/v1/models/hp2:predict" % s.rest
    r = curl(d, url)
    check(r.returncode != 0 and "predictions" not in r.stdout, "curl without a client certificate is refused")
    r = curl(d, url, "--cert", os.path.join(d, "stranger.pem"), "--key", os.path.join(d, "stranger.key"))
    check(r.returncode != 0 and "predictions" not in r.stdout, "curl with another CA's certificate is refused")
    r = curl(d, url, "--cert", os.path.join(d, "client.pem"), "--key", os.path.join(d, "client.key"))
    check(r.returncode == 0 and "predictions" in r.stdout, "curl with the client certificate: %s %s" % (
        r.stdout, r.stderr))
    check(isinstance(grpc_predict(d, s.grpc), grpc.StatusCode), "grpc without a client certificate is refused")
    check(isinstance(grpc_predict(d, s.grpc, "stranger"), grpc.StatusCode), "grpc with another CA's certificate")
    check(grpc_predict(d, s.grpc, "client") == [[4.0]], "grpc with the client certificate predicts")
    _, text = s_client(d, s.rest, request=HTTP_GET)
    check("HTTP/1.1 200" not in text, "s_client without a client certificate gets no answer:\n" + text[-2000:])
    _, text = s_client(d, s.rest, "client", request=HTTP_GET)
    check("HTTP/1.1 200 OK" in text, "s_client with the client certificate gets an answer:\n" + text[-2000:])


def check_refused_at_start(tfhost, d, model, config, words, what):
    r = subprocess.run([tfhost, "serve", "--model_name=hp2", "--model_base_path=" + model,
                        "--ssl_config_file=" + config, "--rest_api_port=%d" % free_port(), "--port=0"],
                       capture_output=True, text=True, timeout=60, env=ENV)
    check(r.returncode != 0 and all(w in r.stderr for w in ["--ssl_config_file '%s'" % config] + words),
          "%s stops the server naming the file: rc %s\n%s" % (what, r.returncode, r.stderr[-2000:]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tfhost", required=True)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="tfhost_tls_") as d:
        r = run([args.tfhost, "demo-models", os.path.join(d, "demo")])
        if not check(r.returncode == 0, "tfhost demo-models: " + r.stderr):
            return 1
        model = os.path.join(d, "demo", "half_plus_two")
        make_pki(d)
        plain_cfg, verify_cfg = os.path.join(d, "ssl.pbtxt"), os.path.join(d, "ssl_verify.pbtxt")
        ssl_config(d, plain_cfg)
        ssl_config(d, verify_cfg, client_verify=True)
        for cfg, body in ((plain_cfg, check_server_tls), (verify_cfg, check_client_verify)):
            s = Server(args.tfhost, d, model, cfg)
            try:
                body(d, s)
            finally:
                check(s.stop() == 0, "tfhost serve exits 0 after SIGTERM")
            if FAILURES:
                print(read(d, os.path.basename(s.log_path))[-5000:], file=sys.stderr)
        bad = os.path.join(d, "bad.pbtxt")
        ssl_config(d, bad, key="expired.key", cert="expired.pem")
        check_refused_at_start(args.tfhost, d, model, bad, ["server_cert has expired"], "an expired certificate")
        ssl_config(d, bad, cert_text="not a certificate")
        check_refused_at_start(args.tfhost, d, model, bad, ["server_cert holds no PEM certificate"],
                               "a certificate that is not PEM")
        ssl_config(d, bad, key="client.key")
        check_refused_at_start(args.tfhost, d, model, bad, ["server_key does not belong to server_cert"],
                               "another certificate's key")
    print("%d failure(s)" % len(FAILURES))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
