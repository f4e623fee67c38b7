"""IR to files: the Jinja environment and its escaping filters, template views, generated tests, `mcpgen new`."""
