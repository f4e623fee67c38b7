"""Real parts for scale-out tests: a `redis-server` and an `haproxy` on free 127.0.0.1 ports.

Both are Debian's packages (`.ci/run` installs them). Each test starts and stops its own
instance; Redis keeps nothing on disk (`--save '' --appendonly no`) and can be stopped and
started again on the same port (an outage, then recovery).
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _wait_listening(port: int, proc: subprocess.Popen[bytes], what: str, log: Path | None, deadline: float = 20.0) -> None:
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode}:\n{log.read_text() if log else ''}")
        with contextlib.suppress(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        time.sleep(0.05)
    raise RuntimeError(f"{what} did not listen on {port} within {deadline} s")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class RedisServer:
    """`redis-server` on a free port of 127.0.0.1, nothing persisted."""

    def __init__(self, log_dir: Path, password: str | None = None) -> None:
        self.password = password
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not installed (apt-get install -y redis-server; see .ci/run)")
        self.binary = binary
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.log = log_dir / f"redis-{self.port}.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> RedisServer:
        command = [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                   "--logfile", str(self.log), "--daemonize", "no"]
        if self.password:
            command += ["--requirepass", self.password]
        self.proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            _wait_listening(self.port, self.proc, "redis-server", self.log)
        except RuntimeError:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        if self.proc is not None:
            _stop(self.proc)
            self.proc = None

    def command(self, *args: str) -> str:
        """One command through redis-cli-less RESP over a socket (inline command), its raw reply."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as conn:
            if self.password:
                conn.sendall(f"AUTH {self.password}\r\n".encode())
                assert conn.recv(64).startswith(b"+OK"), "AUTH refused"
            conn.sendall((" ".join(args) + "\r\n").encode())
            return conn.recv(65536).decode()


@contextlib.contextmanager
def redis_server(log_dir: Path) -> Iterator[RedisServer]:
    server = RedisServer(log_dir).start()
    try:
        yield server
    finally:
        server.stop()


HAPROXY_CONFIG = """\
global
    maxconn 1000

defaults
    mode http
    timeout connect 2s
    timeout client 30s
    timeout server 30s
    timeout http-keep-alive 30s
    retries 3
    option redispatch
    retry-on conn-failure empty-response response-timeout 503
    option http-buffer-request

frontend mcp
    bind 127.0.0.1:{port}
    default_backend replicas

backend replicas
    balance roundrobin
    option httpchk GET /healthz
    http-check expect status 200
    default-server inter 500ms fall 2 rise 1
{servers}
"""


class Haproxy:
    """`haproxy` on a free port, balancing round robin over `backends` (127.0.0.1 ports),
    health-checking `/healthz` (`http_check`; else TCP), retrying a failed connection or
    empty response on another; or with `config`, that configuration (to check or run)."""

    def __init__(self, backends: list[int], log_dir: Path, config: str | None = None, http_check: bool = True) -> None:
        binary = shutil.which("haproxy")
        if binary is None:
            raise RuntimeError("haproxy is not installed (apt-get install -y haproxy; see .ci/run)")
        self.binary = binary
        self.port = free_port()
        servers = "\n".join(f"    server r{i} 127.0.0.1:{port} check" for i, port in enumerate(backends, 1))
        self.config = log_dir / f"haproxy-{self.port}.cfg"
        text = config or HAPROXY_CONFIG.format(port=self.port, servers=servers)
        if not http_check:  # plain TCP checks, for a server without a health route
            text = text.replace("    option httpchk GET /healthz\n    http-check expect status 200\n", "")
        self.config.write_text(text)
        self.log = log_dir / f"haproxy-{self.port}.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = f"http://127.0.0.1:{self.port}/mcp"

    def check(self) -> str:
        """`haproxy -c`: the configuration's validity, its output (raises when invalid)."""
        run = subprocess.run([self.binary, "-c", "-f", str(self.config)], capture_output=True, text=True, check=False)
        if run.returncode != 0:
            raise RuntimeError(f"haproxy -c failed:\n{run.stdout}{run.stderr}")
        return run.stdout + run.stderr

    def start(self) -> Haproxy:
        with self.log.open("wb") as sink:
            self.proc = subprocess.Popen([self.binary, "-db", "-f", str(self.config)], stdin=subprocess.DEVNULL,
                                         stdout=sink, stderr=subprocess.STDOUT)
        try:
            _wait_listening(self.port, self.proc, "haproxy", self.log)
        except RuntimeError:
            self.stop()  # never left running behind a failed start
            raise
        return self

    def stop(self) -> None:
        if self.proc is not None:
            _stop(self.proc)
            self.proc = None


@contextlib.contextmanager
def haproxy(backends: list[int], log_dir: Path) -> Iterator[Haproxy]:
    balancer = Haproxy(backends, log_dir)
    balancer.check()
    balancer.start()
    try:
        yield balancer
    finally:
        balancer.stop()


def self_signed_pem(directory: Path) -> Path:
    """A self-signed certificate for 127.0.0.1 and its key in one PEM file (haproxy's `crt`), made by `openssl`."""
    key, cert, pem = directory / "tls-key.pem", directory / "tls-cert.pem", directory / "server.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    pem.write_bytes(cert.read_bytes() + key.read_bytes())
    return pem


GENERATED_TLS_BIND = "    bind :8443 ssl crt /usr/local/etc/haproxy/certs/server.pem alpn http/1.1\n"


def local_binds(config: str, port: int, tls_port: int, pem: Path) -> str:
    """The generated haproxy.cfg bound to 127.0.0.1: plain HTTP on `port`, TLS on `tls_port` with `pem`."""
    assert GENERATED_TLS_BIND in config and "    bind :8080\n" in config
    tls = f"    bind 127.0.0.1:{tls_port} ssl crt {pem} alpn http/1.1\n"
    return config.replace(GENERATED_TLS_BIND, tls).replace("    bind :8080\n", f"    bind 127.0.0.1:{port}\n")
