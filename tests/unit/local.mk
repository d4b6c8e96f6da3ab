# tests/unit/: unit tests of common/ (each area lists its own tests in its
# local.mk fragment).
