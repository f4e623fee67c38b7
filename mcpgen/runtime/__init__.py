# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""The server runtime every generated package shares: dispatch, request building, auth,
transport, guards, redaction, audit, results, paging and the glue to the user's files.

It is copied byte for byte into each generated package as `runtime/`, imports only itself
(relatively), the `mcp` SDK and their dependencies, and reads everything that differs per
server from the package's `project.py` (see `project`).
"""
