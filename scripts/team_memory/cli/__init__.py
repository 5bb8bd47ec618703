"""CLI: the parser, one module per command group, and the tools behind them (doctor, install, demo)."""
