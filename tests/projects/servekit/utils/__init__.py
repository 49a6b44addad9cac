"""Helpers shared by the worker and the models."""
