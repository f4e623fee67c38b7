"""Putting a server into clients: a project's facts read as text, the client table, the command that
runs the server, config files merged without losing anything, and MCPB bundles.

`facts` reads the project (never imports or runs it); `clients` knows where each client keeps
its config and how an entry looks; `command` picks how the client starts the server; `config`
merges one entry into a client's file; `plan` ties them together for `mcpgen install`;
`bundle` builds the `.mcpb` archive for `mcpgen bundle`.
"""
