# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""Who is calling: the verified OAuth caller of the request being served.

Set by the HTTP gate (`oauth`) for the request's task; read by the access policy (`policy`),
the audit line (`audit`) and your hooks (`public.principal`). None over stdio or with a
static token: no per-caller scopes apply there.
"""

from __future__ import annotations

import contextvars
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is calling, as the verified token says."""

    subject: str | None
    client_id: str | None
    scopes: frozenset[str]
    issuer: str | None = None
    expires_at: int | None = None
    claims: Mapping[str, Any] = field(default_factory=dict)

    def audit(self) -> dict[str, Any]:
        return {"sub": self.subject, "client_id": self.client_id, "scopes": sorted(self.scopes)}


caller: contextvars.ContextVar[Principal | None] = contextvars.ContextVar(
    "mcpgen_principal", default=None
)


def principal() -> Principal | None:
    """The caller of the request being served (None: no OAuth, e.g. stdio or a static token)."""
    return caller.get()
