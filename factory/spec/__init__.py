"""The spec: the builder's full, versioned expansion of a seed."""
