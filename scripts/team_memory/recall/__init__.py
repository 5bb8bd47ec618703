"""Recall: prompt in, <memory-context> out (strategies, matching, ranking, the block) and the hook handler."""
