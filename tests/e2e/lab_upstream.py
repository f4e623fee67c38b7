"""A real HTTP upstream on 127.0.0.1 for `runtime_lab.yaml`, with an OAuth2 token endpoint.

Every request is recorded raw (method, path, query, headers, body) before it is answered.
The API lives under `/v1`; `/oauth/token` issues `tok-1`, `tok-2`, ... for the configured
client id and secret (HTTP basic client authentication); `/v1/auth/oauth` answers 401
unless it gets a live token (or `PRE_OBTAINED_TOKEN`). Canned answers for other paths are set per test with `canned`.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

from ..local_http import Handler, Recorded, RecordingServer

PREFIX = "/v1"
CLIENT_ID, CLIENT_SECRET = "lab-client", "s3cr:et/+"
PRE_OBTAINED_TOKEN = "pre-obtained"  # a token the API accepts without the token endpoint

Answer = tuple[int, str, bytes]


def json_answer(value: Any, status: int = 200) -> Answer:
    return status, "application/json", json.dumps(value).encode()


@dataclass
class TokenPolicy:
    expires_in: int | None = 3600
    issued: int = 0


class LabUpstream(RecordingServer[Recorded]):
    name = "lab-upstream"

    def __init__(self) -> None:
        super().__init__()
        self.canned: dict[str, Answer] = {}  # relative path -> answer
        self.tokens = TokenPolicy()
        self.revoked: set[str] = set()

    @property
    def base_url(self) -> str:
        return self.origin + PREFIX

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self.canned.clear()
            self.revoked.clear()
            self.tokens = TokenPolicy(issued=self.tokens.issued)

    def api_requests(self) -> list[Recorded]:
        return [r for r in self.take() if r.path.startswith(PREFIX + "/")]

    def answer(self, request: Recorded) -> Answer:
        if request.path == "/oauth/token":
            return self._token(request)
        relative = request.path[len(PREFIX) :] if request.path.startswith(PREFIX + "/") else None
        if relative is None:
            return json_answer({"message": "outside the API"}, 404)
        if relative == "/auth/oauth":
            token = request.headers.get("authorization", "").removeprefix("Bearer ")
            issued = token.startswith("tok-") and int(token[4:]) <= self.tokens.issued
            live = (issued or token == PRE_OBTAINED_TOKEN) and token not in self.revoked
            if not live:
                return json_answer({"message": "invalid token"}, 401)
        return self.canned.get(relative, json_answer({"ok": True}))

    def _token(self, request: Recorded) -> Answer:
        expected = base64.b64encode(b"lab-client:s3cr%3Aet%2F%2B").decode()
        form = parse_qs(request.body.decode())
        if request.headers.get("authorization") != f"Basic {expected}" or form.get("grant_type") != ["client_credentials"]:
            return json_answer({"error": "invalid_client"}, 401)
        with self._lock:
            self.tokens.issued += 1
            answer: dict[str, Any] = {"access_token": f"tok-{self.tokens.issued}", "token_type": "Bearer"}
        if self.tokens.expires_in is not None:
            answer["expires_in"] = self.tokens.expires_in
        return json_answer(answer)

    def respond(self, handler: Handler, request: Recorded) -> None:
        self._record(request)
        status, content_type, data = self.answer(request)
        handler.send(status, {"Content-Type": content_type, "Content-Length": str(len(data))}, data)
