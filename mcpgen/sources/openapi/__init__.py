"""OpenAPI sources: YAML/JSON loading with lines, external $ref bundling, Swagger 2.0 rewrite, the parser."""
