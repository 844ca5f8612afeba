"""The lab: offline harnesses that replay history, mine backtests, build demo worlds and evaluate
retrieval on a corpus. Above the agent side, the adapters and the engine, which it drives;
nothing but commands, services and bench/ calls it. Django-free."""
