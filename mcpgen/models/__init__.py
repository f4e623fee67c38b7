"""Typed pydantic models from component schemas (datamodel-code-generator), laid out as black would."""
