"""Cheap, shared program analyses that rules build on (imports, bindings, tensor provenance)."""
