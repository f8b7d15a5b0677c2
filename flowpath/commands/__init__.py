"""Subcommands of the ``flowpath`` CLI (see `flowpath.cli`)."""
