"""Typed pydantic models from component schemas (datamodel-code-generator); the format stage lays them out."""
