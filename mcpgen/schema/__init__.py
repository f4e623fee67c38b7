"""JSON Schema work: tool input/output schemas cleaned, made portable, bounded; sample instances."""
