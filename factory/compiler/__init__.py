"""Compilers: a Spec into the backend, the frontend and the world around them."""
