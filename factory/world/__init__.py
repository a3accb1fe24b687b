"""A world directory: its layout (`layout.World`, the one place a world-relative path is spelled),
its assembly from a seed (`assemble`), its manifest, and its git history (one dating rule)."""
